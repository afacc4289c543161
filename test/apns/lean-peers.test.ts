// The lean transport (core/apns/transport.ts) against HTTP/2 servers that are not ours:
// nghttpd (nghttp2, C) and bench/sink (Go, golang.org/x/net/http2), each scripted to use the
// parts of the protocol a client must honour — small flow-control windows, low stream limits,
// padding, trailers, a zero-size header table, RST_STREAM, CONTINUATION, GOAWAY, a connection
// dropped mid-batch, TLS client certificates — and a node:http2 server for what neither can
// script (MAX_CONCURRENT_STREAMS lowered mid-flight, PING).
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createSecureServer, type Http2SecureServer, type ServerHttp2Session } from 'node:http2';
import { createClientCertificate, ensureCa, ensureServerCertificate } from '../../apns-sim/index.js';
import { startGoSink, type GoSink } from '../../bench/sink/launch.js';
import { createLeanApnsClient, type ApnsClient, type ApnsClientOptions, type ApnsCredentials, type ApnsMessage } from '../../core/apns/index.js';
import { freePort } from '../e2e/harness.js';
import { generateApnsKeyPair } from '../../apns-sim/index.js';
import { PAYLOAD, TEAM_ID, TOPIC, hexToken } from './helpers.js';
import { waitFor } from '../support/wait.js';

const KEY = generateApnsKeyPair();
const TOKEN_AUTH: ApnsCredentials = { kind: 'token', keyP8: KEY.privateKeyP8, keyId: KEY.keyId, teamId: TEAM_ID };
const BIG_PAYLOAD = JSON.stringify({ aps: { alert: 'y'.repeat(3000) } });
const clients: ApnsClient[] = [];

function lean(url: string, ca: string, opts: ApnsClientOptions = {}, credentials: ApnsCredentials = TOKEN_AUTH): ApnsClient {
  const c = createLeanApnsClient({ credentials, topic: TOPIC, environment: 'sandbox', url, ca }, { requestTimeoutMs: 5000, ...opts });
  clients.push(c);
  return c;
}

const msgs = (n: number, from = 0, payload = PAYLOAD): ApnsMessage[] => Array.from({ length: n }, (_, i) => ({ token: hexToken(from + i), payload }));
const statuses = (results: Array<{ status: number; reason?: string }>): string[] => results.map((r) => `${r.status}${r.reason ? ` ${r.reason}` : ''}`);

afterEach(async function () {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

describe('lean APNs transport against nghttpd (nghttp2)', function () {
  this.timeout(30_000);
  let certDir: string;
  let ca: string;
  const servers: ChildProcess[] = [];

  before(async function () {
    const certs = await ensureServerCertificate('.herald/test-nghttpd');
    certDir = certs.certFile;
    ca = await readFile(certs.caFile, 'utf8');
    (this as unknown as { certs: typeof certs }).certs = certs;
  });

  after(function () {
    for (const s of servers) s.kill('SIGTERM');
  });

  async function nghttpd(...flags: string[]): Promise<string> {
    const certs = await ensureServerCertificate('.herald/test-nghttpd');
    const port = await freePort();
    // --echo-upload answers a POST with 200 and its body.
    const child = spawn('nghttpd', ['--echo-upload', '-a', '127.0.0.1', ...flags, String(port), certs.keyFile, certs.certFile], { stdio: 'ignore' });
    servers.push(child);
    const url = `https://127.0.0.1:${port}`;
    await waitFor(`nghttpd answering 200 (${flags.join(' ')})`, async () => (await lean(url, ca, { requestTimeoutMs: 500 }).send(msgs(1)))[0].status === 200, 10_000, 50);
    return url;
  }

  it('delivers a batch with default settings', async function () {
    const url = await nghttpd();
    const results = await lean(url, ca).send(msgs(300));
    expect(statuses(results)).to.deep.equal(Array(300).fill('200'));
    expect(results.map((r) => r.token)).to.deep.equal(msgs(300).map((m) => m.token));
  });

  it('takes tokens of 127 to 4,096 characters and a 4 KB collapse id (RFC 7541 §5.1 lengths), then serves the next', async function () {
    const url = await nghttpd();
    const long = [127, 128, 200, 4096].map((n, i) => ({ token: hexToken(i).padEnd(n, 'e'), payload: PAYLOAD, collapseId: 'k'.repeat(n) }));
    const results = await lean(url, ca, { connections: 1 }).send([...long, ...msgs(2)]);
    expect(statuses(results)).to.deep.equal(Array(6).fill('200'));
  });

  it('honours 1 KB stream windows, a 16 KB connection window, 3 streams, padding, trailers and a zero-size header table', async function () {
    void certDir;
    const url = await nghttpd('-w', '10', '-W', '14', '-m', '3', '-b', '32', '--trailer', 'x-trailer: 1', '-c', '0');
    const results = await lean(url, ca, { connections: 1 }).send(msgs(60, 0, BIG_PAYLOAD));
    expect(statuses(results)).to.deep.equal(Array(60).fill('200'));
  });
});

describe('lean APNs transport against bench/sink (Go x/net/http2)', function () {
  this.timeout(240_000); // the first run builds the sink from the Go module proxy
  const sinks: GoSink[] = [];
  let ca: string;

  async function sink(opts: Parameters<typeof startGoSink>[0] = {}): Promise<GoSink> {
    const s = await startGoSink({ track: true, ...opts });
    sinks.push(s);
    ca = await readFile(s.caFile, 'utf8');
    return s;
  }

  after(async function () {
    await Promise.all(sinks.map((s) => s.close()));
  });

  it('maps answers, resets and a CONTINUATION-sized header block, in order', async function () {
    const s = await sink();
    const results = await lean(s.url, ca, { connections: 1 }).send([
      { token: hexToken(1), payload: PAYLOAD },
      { token: 'bad1', payload: PAYLOAD },
      { token: 'rst1', payload: PAYLOAD },
      { token: 'big1', payload: PAYLOAD },
      { token: hexToken(2), payload: PAYLOAD, apnsId: '00000000-0000-4000-8000-0000000000bb' },
    ]);
    expect(statuses(results)).to.deep.equal(['200', '400 BadDeviceToken', '0 StreamReset', '200', '200']);
    expect(results[4].apnsId).to.equal('00000000-0000-4000-8000-0000000000bb');
    expect(results[0].apnsId).to.match(/^[0-9a-f-]{36}$/);
  });

  it('delivers tokens of 127 to 4,096 characters as sent (RFC 7541 §5.1 lengths), then serves the next', async function () {
    const s = await sink();
    const long = [127, 128, 200, 4096].map((n, i) => ({ token: hexToken(3000 + i).padEnd(n, 'e'), payload: PAYLOAD }));
    const results = await lean(s.url, ca, { connections: 1 }).send([...long, ...msgs(2, 3100)]);
    expect(statuses(results)).to.deep.equal(Array(6).fill('200'));
    expect(Object.keys((await s.stats()).attempts!)).to.include.members(long.map((m) => m.token));
  });

  it('sends 3 KB payloads through 1 KB windows and stays under a 4-stream limit', async function () {
    const s = await sink({ window: 1024, maxStreams: 4 });
    const results = await lean(s.url, ca, { connections: 2, maxConcurrentStreams: 100 }).send(msgs(80, 100, BIG_PAYLOAD));
    expect(statuses(results)).to.deep.equal(Array(80).fill('200'));
    expect((await s.stats()).requests).to.equal(80);
  });

  it('after a GOAWAY mid-batch, answers the streams below last-stream-id and retries the rest once each', async function () {
    // The sink's stream limit keeps the client from having sent the whole batch before the GOAWAY
    // (with Go's default of 250 it sometimes had, and then no second connection was needed).
    const s = await sink({ maxStreams: 8 });
    const batch = msgs(400, 1000);
    batch[100] = { token: 'away1', payload: PAYLOAD };
    const results = await lean(s.url, ca, { connections: 1, maxConcurrentStreams: 1000 }).send(batch);
    expect(statuses(results)).to.deep.equal(Array(400).fill('200'));
    const stats = await s.stats();
    expect(stats.connections).to.be.at.least(2);
    // Nothing delivered twice: every token reached the sink exactly once.
    expect(Object.keys(stats.attempts!)).to.have.length(400);
    expect(Object.values(stats.attempts!).every((n) => n === 1)).to.equal(true);
  });

  it('retries the unanswered requests of a connection dropped mid-batch; each message is answered once', async function () {
    const s = await sink();
    const batch = msgs(300, 2000);
    batch[150] = { token: 'drop1', payload: PAYLOAD };
    const results = await lean(s.url, ca, { connections: 1, maxConcurrentStreams: 1000 }).send(batch);
    expect(statuses(results)).to.deep.equal(Array(300).fill('200'));
    expect(results.map((r) => r.token)).to.deep.equal(batch.map((m) => m.token));
    const stats = await s.stats();
    expect(stats.attempts!.drop1).to.equal(2);
    expect(stats.connections).to.equal(2);
  });

  it('authenticates with a TLS client certificate; without one the connection is refused', async function () {
    const dir = '.herald/test-sink-client-ca';
    const clientCa = await ensureCa(dir, 'sink-clients');
    const cert = await createClientCertificate(dir, clientCa, 'sink-client', TOPIC);
    const s = await sink({ clientCaFile: clientCa.caFile });
    const withCert = await lean(s.url, ca, {}, { kind: 'certificate', cert: cert.cert, key: cert.key }).send(msgs(3));
    expect(statuses(withCert)).to.deep.equal(['200', '200', '200']);
    const without = await lean(s.url, ca, {}, TOKEN_AUTH).send(msgs(2));
    expect(statuses(without)).to.deep.equal(['0 ConnectionError', '0 ConnectionError']);
  });
});

describe('lean APNs transport against a node:http2 server (settings changed mid-flight, PING)', function () {
  let server: Http2SecureServer;
  let url: string;
  let ca: string;
  const sessions: ServerHttp2Session[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let lowered = false;
  let pings = 0;

  before(async function () {
    const certs = await ensureServerCertificate('.herald/test-node-h2');
    ca = await readFile(certs.caFile, 'utf8');
    server = createSecureServer({ key: await readFile(certs.keyFile), cert: await readFile(certs.certFile), settings: { maxConcurrentStreams: 50 } });
    server.on('session', (session) => sessions.push(session));
    server.on('stream', (stream) => {
      inFlight++;
      if (lowered) maxInFlight = Math.max(maxInFlight, inFlight);
      if (!lowered) {
        // The first request lowers the limit to 2 and pings; answers come slowly from now on.
        lowered = true;
        stream.session?.settings({ maxConcurrentStreams: 2 });
        stream.session?.ping((err) => {
          if (!err) pings++;
        });
      }
      stream.resume();
      stream.on('end', () => setTimeout(() => {
        inFlight--;
        stream.respond({ ':status': 200, 'apns-id': '00000000-0000-4000-8000-000000000001' }, { endStream: true });
      }, 5));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `https://127.0.0.1:${(server.address() as { port: number }).port}`;
  });

  after(async function () {
    for (const s of sessions) s.destroy();
    await new Promise((r) => server.close(r));
  });

  it('opens no more streams than a lowered MAX_CONCURRENT_STREAMS allows once acknowledged, and answers PING', async function () {
    const c = lean(url, ca, { connections: 1 });
    const [first] = await c.send(msgs(1));
    expect(first.status).to.equal(200);
    const results = await c.send(msgs(40, 10));
    expect(statuses(results)).to.deep.equal(Array(40).fill('200'));
    expect(maxInFlight).to.be.at.most(2);
    expect(pings).to.equal(1);
  });
});
