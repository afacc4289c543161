// Apple's two hosts through the egress proxy (issue 37): the lean transport's HTTP/2 inside a
// CONNECT tunnel, the node-apn adapter's, and the channel management client's, each to a name only
// the proxy resolves (apns.herald.test), so a 200 proves the connection went through it. A proxy
// restart closes the tunnels: the requests in flight have no answer (status 0, which the sender
// holds: never a device failure), and the next ones go through the proxy again; a proxy refusing
// the tunnel is no answer either.
import { expect } from 'chai';
import { createChannelManager, createLeanApnsClient, createNodeApnClient, type ApnsClient, type ApnsTarget } from '../../core/apns/index.js';
import { createDialer, parseProxyUrl, type Dialer } from '../../core/net/index.js';
import { ConnectProxy } from '../support/connect-proxy.js';
import { waitFor } from '../support/wait.js';
import { PAYLOAD, TEAM_ID, TOPIC, hexToken, startSimWithKey, type SimFixture } from './helpers.js';

describe('core/apns through an egress proxy (HTTPS_PROXY)', function () {
  let f: SimFixture;
  let proxy: ConnectProxy;
  let dialer: Dialer;
  const clients: ApnsClient[] = [];

  const target = (port: number): ApnsTarget => ({
    credentials: { kind: 'token', keyP8: f.key.privateKeyP8, keyId: f.key.keyId, teamId: TEAM_ID },
    topic: TOPIC,
    environment: 'sandbox',
    url: `https://apns.herald.test:${port}`,
    ca: f.ca,
  });
  const messages = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ token: hexToken(i, prefix), payload: PAYLOAD }));

  before(async () => {
    f = await startSimWithKey();
    proxy = await ConnectProxy.start({ credentials: 'herald:pw', hosts: { 'apns.herald.test': '127.0.0.1' } });
    dialer = createDialer({ proxy: parseProxyUrl(proxy.url()) });
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await proxy.down();
    await f.sim.close();
  });

  for (const [adapter, create] of [['lean', createLeanApnsClient], ['node-apn', createNodeApnClient]] as const) {
    it(`${adapter}: every push goes through a tunnel to the gateway's name`, async () => {
      const before = proxy.opened('apns.herald.test');
      const client = create(target(f.sim.port), { dialer, connections: 2 });
      clients.push(client);
      const results = await client.send(messages(200, adapter === 'lean' ? 'a' : 'b'));
      expect(results.map((r) => r.status)).to.deep.equal(Array(200).fill(200));
      expect(proxy.opened('apns.herald.test') - before).to.be.within(1, 2);
      expect(proxy.tunnels.at(-1)).to.include({ target: `apns.herald.test:${f.sim.port}`, status: 200 });
    });
  }

  it('channel management goes through a tunnel to its host', async () => {
    const before = proxy.opened('apns.herald.test');
    const manager = createChannelManager(target(Number(new URL(f.sim.managementUrl).port)), { dialer });
    try {
      const created = await manager.create(0);
      expect(created.status).to.equal(201);
      expect((await manager.delete(created.channelId!)).status).to.equal(204);
    } finally {
      manager.close();
    }
    expect(proxy.tunnels.filter((t) => t.target === `apns.herald.test:${Number(new URL(f.sim.managementUrl).port)}` && t.status === 200).length).to.be.at.least(1);
    expect(proxy.opened('apns.herald.test')).to.be.greaterThan(before);
  });

  it('a proxy restart closes the tunnels: no answer for what was in flight (held, never refused), then through the proxy again', async () => {
    const client = createLeanApnsClient(target(f.sim.port), { dialer, connections: 1 });
    clients.push(client);
    expect((await client.send(messages(1, 'c')))[0].status).to.equal(200);
    f.sim.setRules([{ prefix: 'd', delayMs: 5_000 }]);
    const inFlight = client.send(messages(50, 'd'));
    await waitFor('requests in flight at the gateway', () => f.sim.attempts(hexToken(49, 'd')) > 0, 10_000);
    await proxy.down();
    const lost = await inFlight;
    expect(new Set(lost.map((r) => `${r.status} ${r.reason}`))).to.deep.equal(new Set(['0 ConnectionError']));
    f.sim.setRules([]);
    // Down: still no answer, and nothing reaches the gateway on its own.
    expect((await client.send(messages(1, 'e')))[0]).to.include({ status: 0 });
    await proxy.up();
    const before = proxy.opened('apns.herald.test');
    const after = await waitFor('a push through the restarted proxy', async () => {
      const [r] = await client.send(messages(1, 'f'));
      return r.status === 200 ? r : undefined;
    }, 15_000);
    expect(after.status).to.equal(200);
    expect(proxy.opened('apns.herald.test')).to.be.greaterThan(before);
  });

  it('a tunnel the proxy refuses is no answer from Apple (status 0), whatever the adapter', async () => {
    proxy.refuse = (t) => t.startsWith('apns.herald.test:');
    try {
      for (const create of [createLeanApnsClient, createNodeApnClient]) {
        const client = create(target(f.sim.port), { dialer, connections: 1 });
        clients.push(client);
        const results = await client.send(messages(3, 'g'));
        expect(results.every((r) => r.status === 0), JSON.stringify(results)).to.equal(true);
      }
    } finally {
      proxy.refuse = () => false;
    }
  });
});
