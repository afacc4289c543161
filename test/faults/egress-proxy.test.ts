// Herald behind an egress proxy (issue 37), as real api and sender processes with HTTPS_PROXY set
// (with credentials): Apple's gateway is a name only the proxy resolves (apns.herald.test), so
// every device reached went through it; the app's webhook receiver is on loopback, which goes
// through the proxy too (no implicit exception). The proxy stopped mid-send (closing its tunnels),
// then started again, and a proxy refusing the tunnel, are outages: nothing failed, every device
// reached once the proxy is back, said once in the sender's log (never the password) and in its
// gauges.
import { expect } from 'chai';
import { createKey } from '../../core/apps/keys.js';
import { startApnsSim, type ApnsSim } from '../../apns-sim/index.js';
import { addDevices, createTestApp } from '../delivery/fixtures.js';
import { addDestination, startReceiver, whsec, type Receiver } from '../delivery/event-receiver.js';
import { apiClient, metric, sleep, startRole, type Proc } from '../e2e/harness.js';
import { useTestEnv } from '../env/index.js';
import { ConnectProxy } from '../support/connect-proxy.js';
import { waitFor } from '../support/wait.js';

const DEVICES = 1500; // three chunks
const OUTAGE_MS = 20_000; // two chunks' turns: Apple is asked during it
const THROTTLE = 3000; // devices a minute: a chunk every 10 s, so the outage falls mid-send
const PASSWORD = 'pr0xy-s3cret';

describe('faults: the egress proxy (HTTPS_PROXY) down, restarted or refusing', function () {
  this.timeout(300_000);
  const env = useTestEnv();
  let sim: ApnsSim;
  let proxy: ConnectProxy;
  let receiver: Receiver;
  let api: Proc;
  let sender: Proc;
  let client: ReturnType<typeof apiClient>;
  let appId: string;
  let subscriptionIds: string[];

  before(async function () {
    this.timeout(120_000);
    const t = await createTestApp(env.pool, 'egress');
    appId = t.app.id;
    await addDevices(env.pool, appId, DEVICES, { prefix: 'e1' });
    subscriptionIds = (await env.pool.query('SELECT id FROM subscriptions WHERE app_id = $1 ORDER BY token LIMIT 10', [appId])).rows.map((r) => r.id as string);
    sim = await startApnsSim({ keys: [{ keyId: t.key.keyId, teamId: t.teamId, publicKey: t.key.publicKeyPem }], maxDeliveries: 100_000 });
    proxy = await ConnectProxy.start({ credentials: `herald:${PASSWORD}`, hosts: { 'apns.herald.test': '127.0.0.1' } });
    const secret = whsec();
    receiver = await startReceiver(secret);
    await addDestination(env.pool, appId, 'backend', receiver.url, secret, ['message.push.sent']);
    const childEnv = env.childEnv({
      HTTPS_PROXY: proxy.url(),
      HERALD_APNS_URL: `https://apns.herald.test:${sim.port}`,
      HERALD_APNS_CA_FILE: sim.caFile,
      HERALD_EVENT_HTTP_HOSTS: '127.0.0.1',
      HERALD_SENDER_LEASE_MS: '5000',
      HERALD_SENDER_RETRY_BASE_MS: '50',
    });
    [api, sender] = await Promise.all([startRole('api', childEnv), startRole('sender', { ...childEnv, HERALD_LOG_LEVEL: 'info' })]);
    const { key } = await createKey(env.pool, appId, { name: 'egress' });
    client = apiClient(api.port, key);
  });

  after(async function () {
    this.timeout(60_000);
    await Promise.all([api?.kill('SIGKILL'), sender?.kill('SIGKILL')]);
    await Promise.all([sim?.close(), proxy?.down(), receiver?.close()]);
  });

  async function final(id: number): Promise<any> {
    return waitFor(`send ${id} final`, async () => {
      const { status, body } = await client.get(`/api/v1/notifications/${id}`);
      return status === 200 && (body.status === 'approved' || body.status === 'draft') ? body : undefined;
    }, 180_000);
  }

  const unreached = (tokens: string[]) => {
    const ok = new Set(sim.deliveries().filter((d) => d.status === 200).map((d) => d.token));
    return tokens.filter((t) => !ok.has(t));
  };

  it('every push and every webhook batch goes through the proxy, with its credentials', async () => {
    const res = await client.post('/api/v1/notifications', { app_id: appId, include_subscription_ids: subscriptionIds, contents: { en: 'through the proxy' } });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(await final(res.body.id)).to.include({ status: 'approved', sent: 10, failed: 0 });
    await waitFor('the send events at the receiver', () => receiver.accepted.flatMap((d) => d.events).length >= 10, 60_000);
    const port = new URL(receiver.url).port;
    expect(proxy.tunnels.some((t) => t.target === `127.0.0.1:${port}` && t.status === 200), 'the webhook through a tunnel').to.equal(true);
    expect(proxy.tunnels.filter((t) => t.target.startsWith('apns.herald.test:')).every((t) => t.authorization === `Basic ${Buffer.from(`herald:${PASSWORD}`).toString('base64')}`)).to.equal(true);
    expect(await metric(sender, 'herald_egress_proxy_up')).to.equal(1);
    expect(await metric(api, 'herald_egress_proxy_up')).to.equal(1);
  });

  it('the proxy stopped mid-send (its tunnels closed), then back: nothing failed, every device reached, said once', async () => {
    const tokens = (await env.pool.query('SELECT token FROM subscriptions WHERE app_id = $1', [appId])).rows.map((r) => r.token as string);
    sim.reset();
    const res = await client.post('/api/v1/notifications', { app_id: appId, included_segments: ['Subscribed Users'], contents: { en: 'outage' }, throttle_rate_per_minute: THROTTLE });
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    await waitFor('the first chunk delivered', async () => (await client.get(`/api/v1/notifications/${res.body.id}`)).body.sent >= 500, 60_000);
    await proxy.down();
    const downAt = Date.now();
    await waitFor('the sender sees the proxy down', async () => (await metric(sender, 'herald_egress_proxy_up')) === 0, 60_000);
    await sleep(Math.max(0, OUTAGE_MS - (Date.now() - downAt))); // the outage's length is the fault itself
    await proxy.up();

    expect(await final(res.body.id)).to.include({ status: 'approved', failed: 0, sent: DEVICES, skipped: 0, total_recipients: DEVICES });
    expect(unreached(tokens), 'devices never accepted by the gateway').to.deep.equal([]);
    expect(await metric(sender, 'herald_egress_proxy_up')).to.equal(1);
    expect(await metric(sender, 'herald_sender_apns_held_total')).to.be.greaterThan(0);
    const lines = sender.output().split('\n').filter((l) => l.includes(`"dependency":"egress proxy 127.0.0.1:${proxy.port}"`));
    expect(lines.filter((l) => l.includes('unavailable; waiting for it to come back')), 'the outage said once').to.have.length(1);
    expect(lines.filter((l) => l.includes('is back')), 'its end said once').to.have.length(1);
  });

  it('a proxy refusing the tunnel to Apple holds the send; once it opens one, every device goes', async () => {
    proxy.refuse = (target) => target.startsWith('apns.herald.test:');
    // Restarted with the refusal on: the open tunnels go, and the next ones to Apple are refused.
    await proxy.down();
    await proxy.up();
    const res = await client.post('/api/v1/notifications', { app_id: appId, include_subscription_ids: subscriptionIds, contents: { en: 'refused' } });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    await waitFor('the refusal counted', async () => (await metric(sender, 'herald_egress_tunnels_refused')) === 1, 60_000);
    expect((await client.get(`/api/v1/notifications/${res.body.id}`)).body).to.include({ failed: 0 });
    proxy.refuse = () => false;
    expect(await final(res.body.id)).to.include({ status: 'approved', sent: 10, failed: 0 });
    expect(await metric(sender, 'herald_egress_tunnels_refused')).to.equal(0);
    expect(sender.output().split('\n').filter((l) => l.includes('egress proxy refuses tunnels to this target')), 'the refusal said once').to.have.length(1);
    for (const p of [api, sender]) expect(p.output(), 'the proxy password is never logged').to.not.include(PASSWORD);
  });
});
