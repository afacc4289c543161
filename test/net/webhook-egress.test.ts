// A webhook batch through the egress proxy (core/events/post.ts over core/net/dialer.ts): the POST
// goes through a tunnel to the address the destination's name was checked to (never the name, so
// the proxy cannot resolve it to another), loopback too unless NO_PROXY exempts it; with the proxy
// down the attempt fails with no answer (retried, never a refusal); and an https request through
// a tunnel checks the certificate against the URL's name.
import { expect } from 'chai';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer, request as httpsRequest } from 'node:https';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConnectProxy } from '../support/connect-proxy.js';
import { createDialer, parseNoProxy, parseProxyUrl } from '../../core/net/index.js';
import { postBatch } from '../../core/events/post.js';
import { ensureServerCertificate } from '../../apns-sim/certs.js';

async function listening(server: Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return (server.address() as { port: number }).port;
}

describe('webhook batches through the egress proxy', () => {
  let proxy: ConnectProxy;
  let receiver: Server;
  let port: number;
  let bodies: string[];

  before(async () => {
    bodies = [];
    receiver = createHttpServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        bodies.push(body);
        res.writeHead(204).end();
      });
    });
    port = await listening(receiver);
    proxy = await ConnectProxy.start({ hosts: { 'hooks.herald.test': '127.0.0.1', 'hooks.example.test': '127.0.0.1' } });
  });
  after(async () => {
    await proxy.down();
    receiver.close();
  });

  const post = (url: string, dialer = createDialer({ proxy: parseProxyUrl(proxy.url()) })) =>
    postBatch(url, { 'webhook-id': 'msg_1' }, '[{"n":1}]', { timeoutMs: 5_000, httpHosts: ['localhost', '127.0.0.1'], dialer });

  it('goes through a tunnel to the address the name was checked to, not to the name', async () => {
    const before = bodies.length;
    expect(await post(`http://localhost:${port}/events`)).to.deep.equal({ status: 204, retryAfterMs: undefined });
    expect(bodies.slice(before)).to.deep.equal(['[{"n":1}]']);
    expect(proxy.tunnels.at(-1)).to.include({ target: `127.0.0.1:${port}`, status: 200 });
  });

  it('a refused address gets no request and the proxy is never asked', async () => {
    const before = proxy.tunnels.length;
    const result = await postBatch(`http://localhost:${port}/events`, {}, '[]', { timeoutMs: 5_000, httpHosts: [], dialer: createDialer({ proxy: parseProxyUrl(proxy.url()) }) });
    expect(result.status).to.equal(0);
    expect(result.error).to.match(/loopback/);
    expect(proxy.tunnels.length).to.equal(before);
  });

  it('NO_PROXY sends it direct', async () => {
    const before = proxy.tunnels.length;
    const dialer = createDialer({ proxy: parseProxyUrl(proxy.url()), noProxy: parseNoProxy('localhost') });
    expect((await post(`http://localhost:${port}/events`, dialer)).status).to.equal(204);
    expect(proxy.tunnels.length).to.equal(before);
  });

  it('with the proxy down the attempt has no answer (status 0: retried later), and nothing goes direct', async () => {
    const down = await ConnectProxy.start();
    const dialer = createDialer({ proxy: parseProxyUrl(down.url()) });
    await down.down();
    const before = bodies.length;
    const result = await post(`http://localhost:${port}/events`, dialer);
    expect(result.status).to.equal(0);
    expect(result.error).to.match(/egress proxy 127\.0\.0\.1:\d+/);
    expect(bodies.length).to.equal(before);
  });

  it('https through a tunnel: TLS to the URL\'s name, its certificate checked against that name', async () => {
    const pki = await ensureServerCertificate(await mkdtemp(join(tmpdir(), 'herald-egress-')));
    const server = createHttpsServer({ cert: await readFile(pki.certFile), key: await readFile(pki.keyFile) }, (_req, res) => res.writeHead(200).end('ok'));
    const httpsPort = await listening(server as unknown as Server);
    const ca = await readFile(pki.caFile, 'utf8');
    const dialer = createDialer({ proxy: parseProxyUrl(proxy.url()) });
    const get = (host: string) =>
      new Promise<number | string>((resolve) => {
        const req = httpsRequest({ host, port: httpsPort, path: '/', createConnection: dialer.requestConnection({ tls: { ca } }) }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
        req.end();
      });
    try {
      expect(await get('hooks.herald.test')).to.equal(200); // a SAN of the certificate, resolved by the proxy only
      expect(proxy.tunnels.at(-1)).to.include({ target: `hooks.herald.test:${httpsPort}`, status: 200 });
      // The same server under a name its certificate does not carry: refused by our TLS, whatever the proxy did.
      expect(await get('hooks.example.test')).to.equal('ERR_TLS_CERT_ALTNAME_INVALID');
    } finally {
      server.close();
    }
  });
});
