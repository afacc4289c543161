// The dialer (core/net/dialer.ts) against a real CONNECT proxy (test/support/connect-proxy.ts) and
// an echo server: what goes through the tunnel and what goes direct, the proxy's credentials, its
// refusals and its absence as typed failures, each said once in the log and in the state the
// gauges read, and the webhook rule that the tunnel goes to the address checked before it.
import { expect } from 'chai';
import { createServer, type Server, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { ConnectProxy } from '../support/connect-proxy.js';
import { createDialer, parseNoProxy, parseProxyUrl, TunnelError } from '../../core/net/index.js';
import { checkedLookup } from '../../core/events/checked-lookup.js';
import type { Logger } from '../../core/log.js';

/** A server that answers each line with `echo:<line>`. */
async function echoServer(): Promise<{ server: Server; port: number }> {
  const server = createServer((s) => s.on('data', (d) => s.write(`echo:${d.toString()}`)));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { server, port: (server.address() as { port: number }).port };
}

function roundTrip(socket: Socket, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    socket.once('data', (d) => resolve(d.toString()));
    socket.once('error', reject);
    socket.write(text);
  });
}

/** A logger whose lines are kept, to count what was said and check what was not. */
function capturingLogger(): { logger: Logger; text: () => string } {
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, new Writable({ write(chunk, _e, done) { lines.push(chunk.toString()); done(); } })) as Logger;
  return { logger, text: () => lines.join('') };
}

const failure = async (p: Promise<unknown>): Promise<unknown> => p.then(() => { throw new Error('expected a failure'); }, (e: unknown) => e);

describe('the dialer through a CONNECT proxy', () => {
  let echo: { server: Server; port: number };
  let proxy: ConnectProxy;

  before(async () => {
    echo = await echoServer();
    proxy = await ConnectProxy.start({ credentials: 'herald:s3cret', hosts: { 'echo.herald.test': '127.0.0.1' } });
  });
  after(async () => {
    await proxy.down();
    echo.server.close();
  });

  it('tunnels to a name only the proxy resolves, presenting the credentials of HTTPS_PROXY', async () => {
    const dialer = createDialer({ proxy: parseProxyUrl(proxy.url()) });
    const socket = await dialer.connect({ host: 'echo.herald.test', port: echo.port });
    expect(await roundTrip(socket, 'hello')).to.equal('echo:hello');
    socket.destroy();
    const tunnel = proxy.tunnels.at(-1)!;
    expect(tunnel).to.deep.equal({ target: `echo.herald.test:${echo.port}`, authorization: `Basic ${Buffer.from('herald:s3cret').toString('base64')}`, status: 200 });
  });

  it('sends loopback through the proxy too: only NO_PROXY exempts a host', async () => {
    const before = proxy.opened('127.0.0.1');
    const through = createDialer({ proxy: parseProxyUrl(proxy.url()), noProxy: parseNoProxy('.svc,10.0.0.0/8') });
    const socket = await through.connect({ host: '127.0.0.1', port: echo.port });
    expect(await roundTrip(socket, 'a')).to.equal('echo:a');
    socket.destroy();
    expect(proxy.opened('127.0.0.1')).to.equal(before + 1);

    const exempt = createDialer({ proxy: parseProxyUrl(proxy.url()), noProxy: parseNoProxy(`127.0.0.1:${echo.port}`) });
    expect(exempt.proxied({ host: '127.0.0.1', port: echo.port })).to.equal(false);
    const direct = await exempt.connect({ host: '127.0.0.1', port: echo.port });
    expect(await roundTrip(direct, 'b')).to.equal('echo:b');
    direct.destroy();
    expect(proxy.opened('127.0.0.1'), 'no tunnel for an exempt host').to.equal(before + 1);
  });

  it('a refused tunnel is the target\'s, said once; the proxy stays up, and the next tunnel that opens clears it', async () => {
    const log = capturingLogger();
    const dialer = createDialer({ proxy: parseProxyUrl(proxy.url()), logger: log.logger });
    proxy.refuse = (target) => target.startsWith('echo.herald.test:');
    try {
      for (let i = 0; i < 3; i++) {
        const error = await failure(dialer.connect({ host: 'echo.herald.test', port: echo.port }));
        expect(error).to.be.instanceOf(TunnelError).and.include({ kind: 'refused', status: 403 });
      }
      expect(dialer.state()).to.deep.equal({ proxy: `127.0.0.1:${proxy.port}`, up: true, refusedTargets: 1 });
    } finally {
      proxy.refuse = () => false;
    }
    (await dialer.connect({ host: 'echo.herald.test', port: echo.port })).destroy();
    expect(dialer.state()).to.include({ up: true, refusedTargets: 0 });
    const said = log.text().split('\n').filter((l) => l.includes('refuses tunnels to this target'));
    expect(said, 'the refusal logged once, not at each attempt').to.have.length(1);
    expect(log.text()).to.include('opens tunnels to this target again');
  });

  it('wrong or missing credentials (407) and a proxy that is down are outages of the proxy: said once, back once, never the password', async () => {
    const log = capturingLogger();
    const wrong = createDialer({ proxy: parseProxyUrl(proxy.url('herald:wrong-password')), logger: log.logger });
    const error = await failure(wrong.connect({ host: '127.0.0.1', port: echo.port }));
    expect(error).to.be.instanceOf(TunnelError).and.include({ kind: 'refused', status: 407 });
    expect(wrong.state()?.up).to.equal(false);

    const down = await ConnectProxy.start({ credentials: 'herald:s3cret' });
    const dialer = createDialer({ proxy: parseProxyUrl(down.url()), logger: log.logger });
    await down.down();
    for (let i = 0; i < 3; i++) expect(await failure(dialer.connect({ host: '127.0.0.1', port: echo.port }))).to.be.instanceOf(TunnelError).and.include({ kind: 'unreachable' });
    expect(dialer.state()).to.include({ up: false });
    await down.up();
    (await dialer.connect({ host: '127.0.0.1', port: echo.port })).destroy();
    expect(dialer.state()).to.include({ up: true });
    await down.down();

    const text = log.text();
    expect(text.split('\n').filter((l) => l.includes(`egress proxy 127.0.0.1:${down.port} unavailable`)), 'down said once').to.have.length(1);
    expect(text.split('\n').filter((l) => l.includes(`egress proxy 127.0.0.1:${down.port} is back`)), 'back said once').to.have.length(1);
    expect(text).to.not.include('s3cret').and.not.include('wrong-password').and.not.include(Buffer.from('herald:s3cret').toString('base64'));
  });

  it('a webhook\'s name is checked before the tunnel, and the tunnel goes to the checked address', async () => {
    const dialer = createDialer({ proxy: parseProxyUrl(proxy.url()) });
    const resolver = (answer: string) => checkedLookup([], (_host, _opts, callback) => callback(null, [{ address: answer, family: 4 }]));
    const before = proxy.tunnels.length;
    // A name answering with the cloud's metadata address: refused here, the proxy never asked.
    const refused = await failure(dialer.connect({ host: 'hooks.example.test', port: 443 }, { lookup: resolver('169.254.169.254') }));
    expect((refused as NodeJS.ErrnoException).code).to.equal('EFORBIDDEN');
    expect(proxy.tunnels.length).to.equal(before);
    // An allowed answer: the proxy is asked for that address, not the name (it cannot resolve it to another).
    const allowed = checkedLookup(['hooks.example.test'], (_host, _opts, callback) => callback(null, [{ address: '127.0.0.1', family: 4 }]));
    const socket = await dialer.connect({ host: 'hooks.example.test', port: echo.port }, { lookup: allowed });
    expect(await roundTrip(socket, 'c')).to.equal('echo:c');
    socket.destroy();
    expect(proxy.tunnels.at(-1)?.target).to.equal(`127.0.0.1:${echo.port}`);
  });
});
