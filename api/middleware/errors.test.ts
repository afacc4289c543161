// The error body decides by class: an outage is a 503 with Retry-After, a bug is a 500 with its
// stack logged — even a bug whose message reads like an outage (it was a 503 while the rule read
// message text).
import { expect } from 'chai';
import Koa from 'koa';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { Writable } from 'node:stream';
import { errorBody } from './errors.js';
import { DependencyUnavailableError } from '../../core/faults/unavailable.js';

function appThrowing(error: unknown, lines: string[]): Koa {
  const log = pino({ level: 'info' }, new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }));
  const app = new Koa();
  app.use(async (ctx, next) => {
    ctx.state.requestId = 'req-1';
    ctx.state.log = log;
    await next();
  });
  app.use(errorBody());
  app.use(async () => {
    throw error;
  });
  return app;
}

async function call(app: Koa): Promise<{ status: number; retryAfter: string | null; body: any }> {
  const server: Server = createServer(app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
  } finally {
    server.close();
  }
}

describe('errorBody: outages and bugs by class', () => {
  it('a TypeError that mentions a timeout is a 500 with its stack logged, not a 503', async () => {
    const lines: string[] = [];
    const res = await call(appThrowing(new TypeError("Cannot read properties of undefined (reading 'timeoutMs')"), lines));
    expect(res.status).to.equal(500);
    expect(res.retryAfter).to.equal(null);
    expect(res.body.errors[0]).to.include('Request id: req-1');
    const logged = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'request failed');
    expect(logged?.err?.stack, 'the stack is logged').to.include('TypeError');
  });

  it('a DependencyUnavailableError is a 503 with Retry-After and the errors body', async () => {
    const res = await call(appThrowing(new DependencyUnavailableError('PostgreSQL', new Error('Connection terminated')), []));
    expect(res.status).to.equal(503);
    expect(res.retryAfter).to.equal('5');
    expect(res.body.errors).to.be.an('array').with.length.greaterThan(0);
  });
});
