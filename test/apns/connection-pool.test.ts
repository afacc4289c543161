// The lean transport's connections follow the streams in flight (issue 37): against the simulator
// advertising 10 streams a connection and answering after a delay, 50 messages at once open 5
// connections, 3 when the maximum is 3 (the rest queued, all answered), none more for the next
// batch (kept open), and the connections go round the addresses the gateway's name resolves to.
// A server allowing 1 stream a connection (Apple's limit after a refusal) gets more connections,
// up to the maximum, never more streams on one. Connection counts
// are asserted, never times.
import { expect } from 'chai';
import { createSecureServer, type Http2SecureServer, type ServerHttp2Session } from 'node:http2';
import { readFile } from 'node:fs/promises';
import { ensureServerCertificate, generateApnsKeyPair } from '../../apns-sim/index.js';
import { createLeanApnsClient, type LeanApnsClient } from '../../core/apns/transport.js';
import type { ApnsClientOptions } from '../../core/apns/types.js';
import { PAYLOAD, TEAM_ID, TOPIC, hexToken, startSimWithKey, type SimFixture } from './helpers.js';

const STREAMS = 10;

describe('core/apns lean transport: connections follow the streams in flight', function () {
  this.timeout(30_000);
  let f: SimFixture;
  const clients: LeanApnsClient[] = [];

  // Listening on every address of the machine: 127.0.0.1 and 127.0.0.2 both reach it.
  before(async () => (f = await startSimWithKey({ host: '0.0.0.0', maxConcurrentStreams: STREAMS, rules: [{ prefix: '', delayMs: 500 }] })));
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await f.sim.close();
  });
  beforeEach(() => f.sim.reset());

  function client(opts: ApnsClientOptions, url = `https://127.0.0.1:${f.sim.port}`): LeanApnsClient {
    const c = createLeanApnsClient({ credentials: { kind: 'token', keyP8: f.key.privateKeyP8, keyId: f.key.keyId, teamId: TEAM_ID }, topic: TOPIC, environment: 'sandbox', url, ca: f.ca }, opts);
    clients.push(c);
    return c;
  }

  const batch = (n: number, from = 0) => Array.from({ length: n }, (_, i) => ({ token: hexToken(from + i), payload: PAYLOAD }));
  const statuses = (rs: { status: number }[]) => [...new Set(rs.map((r) => r.status))];

  it('50 in flight at 10 streams a connection: 5 connections, kept open for the next 50', async () => {
    const c = client({ connections: 16 });
    expect(statuses(await c.send(batch(50)))).to.deep.equal([200]);
    expect(f.sim.stats().connections).to.equal(5);
    expect(c.pool().open).to.equal(5);
    expect(statuses(await c.send(batch(50, 50)))).to.deep.equal([200]);
    expect(f.sim.stats().connections, 'no new connection').to.equal(5);
  });

  it('one message at a time needs one connection', async () => {
    const c = client({ connections: 16 });
    for (let i = 0; i < 3; i++) expect(statuses(await c.send(batch(1, i)))).to.deep.equal([200]);
    expect(f.sim.stats().connections).to.equal(1);
  });

  it('the maximum holds: 3 connections at most, the rest waits its turn and is answered', async () => {
    const c = client({ connections: 3 });
    expect(statuses(await c.send(batch(50)))).to.deep.equal([200]);
    expect(f.sim.stats().connections).to.equal(3);
  });

  it('spread over the addresses the name resolves to, the certificate checked against the name', async () => {
    const c = client({ connections: 16, resolve: async () => ['127.0.0.1', '127.0.0.2'] }, `https://localhost:${f.sim.port}`);
    // The first connection goes to the name while its addresses are looked up; then in turn.
    expect(statuses(await c.send(batch(1)))).to.deep.equal([200]);
    expect(statuses(await c.send(batch(50, 1)))).to.deep.equal([200]);
    const { open, byAddress } = c.pool();
    expect(open).to.equal(5);
    expect(byAddress).to.deep.equal({ localhost: 1, '127.0.0.1': 2, '127.0.0.2': 2 });
  });
});

describe('core/apns lean transport: a peer allowing 1 stream a connection gets more connections', function () {
  this.timeout(30_000);
  let server: Http2SecureServer;
  let url: string;
  let ca: string;
  const sessions: ServerHttp2Session[] = [];

  before(async () => {
    const certs = await ensureServerCertificate('.herald/test-node-h2');
    ca = await readFile(certs.caFile, 'utf8');
    // Apple's limit after a refusal; node:http2 refuses a stream beyond it (REFUSED_STREAM).
    server = createSecureServer({ key: await readFile(certs.keyFile), cert: await readFile(certs.certFile), settings: { maxConcurrentStreams: 1 } });
    server.on('session', (session) => sessions.push(session));
    server.on('stream', (stream) => {
      stream.resume();
      stream.on('end', () => setTimeout(() => stream.respond({ ':status': 200, 'apns-id': '00000000-0000-4000-8000-000000000001' }, { endStream: true }), 20));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `https://127.0.0.1:${(server.address() as { port: number }).port}`;
  });

  after(async () => {
    for (const s of sessions) s.destroy();
    await new Promise((r) => server.close(r));
  });

  it('20 messages at 1 stream a connection: the maximum of 4 connections, every message answered', async () => {
    const key = generateApnsKeyPair();
    const c = createLeanApnsClient({ credentials: { kind: 'token', keyP8: key.privateKeyP8, keyId: key.keyId, teamId: TEAM_ID }, topic: TOPIC, environment: 'sandbox', url, ca }, { connections: 4 });
    try {
      expect((await c.send([{ token: hexToken(1), payload: PAYLOAD }]))[0].status).to.equal(200);
      expect(sessions, 'one message, one connection').to.have.length(1);
      const results = await c.send(Array.from({ length: 20 }, (_, i) => ({ token: hexToken(10 + i), payload: PAYLOAD })));
      expect([...new Set(results.map((r) => `${r.status} ${r.reason ?? ''}`))]).to.deep.equal(['200 ']);
      expect(sessions).to.have.length(4);
    } finally {
      await c.close();
    }
  });
});
