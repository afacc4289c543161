// Slow clients are cut: a body dribbled one byte a second, or headers that never end, get a 408
// and a closed connection within core/http/server.ts's bounds (plus its check interval), instead
// of holding a connection for minutes (Node's defaults).
import { expect } from 'chai';
import { connect } from 'node:net';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { HTTP_LIMITS } from '../../core/http/server.js';

/** Writes `head`, then one byte a second forever; resolves with what the server said when it closed. */
function dribble(url: string, head: string, giveUpMs: number): Promise<{ answer: string; closed: boolean }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let answer = '';
    let timer: NodeJS.Timeout | undefined;
    const done = (closed: boolean) => {
      clearInterval(timer);
      clearTimeout(limit);
      socket.destroy();
      resolve({ answer, closed });
    };
    const limit = setTimeout(() => done(false), giveUpMs);
    socket.on('data', (b) => (answer += b.toString()));
    socket.on('close', () => done(true));
    socket.on('error', () => undefined);
    socket.on('connect', () => {
      socket.write(head);
      timer = setInterval(() => socket.write('x'), 1000);
    });
  });
}

describe('api: slow clients are cut', function () {
  this.timeout(120_000);
  const env = useTestEnv();
  const api = useTestApi(env);

  it('a body dribbled one byte a second gets a 408 and the connection closed within the request timeout', async () => {
    const head = 'POST /api/v1/apps/00000000-0000-4000-8000-000000000000/subscriptions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{';
    const res = await dribble(api.url, head, HTTP_LIMITS.requestTimeoutMs + HTTP_LIMITS.checkEveryMs + 10_000);
    expect(res.closed, 'the server closed the connection').to.equal(true);
    expect(res.answer).to.match(/^HTTP\/1\.1 408/);
  });

  it('headers that never end get a 408 within the headers timeout', async () => {
    const res = await dribble(api.url, 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ', HTTP_LIMITS.headersTimeoutMs + HTTP_LIMITS.checkEveryMs + 10_000);
    expect(res.closed).to.equal(true);
    expect(res.answer).to.match(/^HTTP\/1\.1 408/);
  });
});
