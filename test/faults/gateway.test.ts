// A bad day at Apple's end: the gateway unreachable for 20 s in the middle of a send, and the
// gateway answering 500 or 503 for 20 s. Apple refused no device, so none may count as failed
// (the contract: "failed when the gateway refuses it"): every send ends `approved` with exact
// counts and `failed` 0, every device got a 200 from the gateway, and the sender says when the
// outage began and when it ended (one log line each, a metric). Real api and sender processes on
// this file's own database; the simulator stands in for Apple.
import { expect } from 'chai';
import { createKey } from '../../core/apps/keys.js';
import { startApnsSim, type ApnsSim, type ApnsSimOptions } from '../../apns-sim/index.js';
import { addDevices, createTestApp } from '../delivery/fixtures.js';
import { apiClient, metric, sleep, startRole, type Proc } from '../e2e/harness.js';
import { useTestEnv } from '../env/index.js';
import { waitFor } from '../support/wait.js';

const DEVICES = 1500; // three chunks
const OUTAGE_MS = 20_000;
const THROTTLE = 3000; // devices a minute: a chunk every 10 s, so the outage falls mid-send

describe('faults: the APNs gateway unreachable or failing', function () {
  this.timeout(300_000);
  const env = useTestEnv();
  let sims: ApnsSim[] = [];
  let simOptions: ApnsSimOptions;
  let api: Proc;
  let sender: Proc;
  let client: ReturnType<typeof apiClient>;
  let appId: string;
  let tokens: string[];

  const sim = () => sims[sims.length - 1];

  before(async function () {
    this.timeout(120_000);
    const t = await createTestApp(env.pool, 'gateway');
    appId = t.app.id;
    tokens = await addDevices(env.pool, appId, DEVICES, { prefix: 'e0' });
    simOptions = { keys: [{ keyId: t.key.keyId, teamId: t.teamId, publicKey: t.key.publicKeyPem }], maxDeliveries: 100_000 };
    sims = [await startApnsSim(simOptions)];
    simOptions = { ...simOptions, port: sim().port, certDir: sim().certDir };
    const childEnv = env.childEnv({ HERALD_APNS_URL: sim().url, HERALD_APNS_CA_FILE: sim().caFile, HERALD_SENDER_LEASE_MS: '5000', HERALD_SENDER_RETRY_BASE_MS: '50' });
    [api, sender] = await Promise.all([startRole('api', childEnv), startRole('sender', { ...childEnv, HERALD_LOG_LEVEL: 'info' })]);
    const { key } = await createKey(env.pool, appId, { name: 'gateway' });
    client = apiClient(api.port, key);
  });

  after(async function () {
    this.timeout(60_000);
    await Promise.all([api?.kill('SIGKILL'), sender?.kill('SIGKILL')]);
    await Promise.all(sims.map((s) => s.close()));
  });

  /** Each device got a 200 from one of the simulators (the one before the outage, or after). */
  function unreached(): string[] {
    const ok = new Set<string>();
    for (const s of sims) for (const d of s.deliveries()) if (d.status === 200) ok.add(d.token);
    return tokens.filter((t) => !ok.has(t));
  }

  async function final(id: number): Promise<any> {
    return waitFor(`send ${id} final`, async () => {
      const { status, body } = await client.get(`/api/v1/notifications/${id}`);
      return status === 200 && (body.status === 'approved' || body.status === 'draft') ? body : undefined;
    }, 180_000);
  }

  async function broadcast(name: string): Promise<number> {
    const res = await client.post('/api/v1/notifications', { app_id: appId, included_segments: ['Subscribed Users'], contents: { en: name }, throttle_rate_per_minute: THROTTLE });
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    return res.body.id as number;
  }

  const outageLines = () => sender.output().split('\n').filter((l) => l.includes('"dependency":"APNs gateway"'));

  it('unreachable for 20 s mid-send: nothing failed, every device reached, the outage logged once', async () => {
    const id = await broadcast('unreachable');
    // Mid-send: the first chunk is recorded, then the gateway goes away.
    await waitFor('the first chunk delivered', async () => (await client.get(`/api/v1/notifications/${id}`)).body.sent >= 500, 60_000);
    await sim().close();
    const downAt = Date.now();
    // A list send made during the outage must come through too.
    const list = await client.post('/api/v1/notifications', { app_id: appId, include_subscription_ids: (await env.pool.query('SELECT id FROM subscriptions WHERE app_id = $1 ORDER BY token LIMIT 10', [appId])).rows.map((r) => r.id), contents: { en: 'during' } });
    expect(list.status, JSON.stringify(list.body)).to.equal(200);
    await waitFor('the sender sees the outage', async () => (await metric(sender, 'herald_sender_apns_unavailable')) === 1, 60_000);
    await sleep(Math.max(0, OUTAGE_MS - (Date.now() - downAt))); // the outage's length is the fault itself
    sims.push(await startApnsSim(simOptions));

    const s = await final(id);
    expect(s).to.include({ status: 'approved', failed: 0, sent: DEVICES, skipped: 0, total_recipients: DEVICES, remaining: 0 });
    const l = await final(list.body.id);
    expect(l).to.include({ status: 'approved', failed: 0, sent: 10, total_recipients: 10 });
    expect(unreached(), 'devices never accepted by the gateway').to.deep.equal([]);

    expect(await metric(sender, 'herald_sender_apns_held_total')).to.be.greaterThan(0);
    expect(await metric(sender, 'herald_sender_apns_unavailable')).to.equal(0);
    const lines = outageLines();
    expect(lines[0], 'the outage start is logged').to.include('unavailable; waiting for it to come back');
    expect(lines[lines.length - 1], 'the outage end is logged').to.include('is back');
    const starts = lines.filter((l) => l.includes('waiting for it to come back')).length;
    expect(lines.length, 'start and end lines alternate, one each per outage').to.equal(2 * starts);
  });

  for (const status of [503, 500]) {
    it(`answering ${status} for 20 s: nothing failed, every device reached`, async () => {
      for (const s of sims) s.reset();
      sim().setRules([{ prefix: '', status }]);
      const id = await broadcast(`answering ${status}`);
      await waitFor(`the sender holds ${status} answers`, async () => (await metric(sender, 'herald_sender_apns_unavailable')) === 1, 60_000);
      await sleep(OUTAGE_MS);
      sim().setRules([]);

      const s = await final(id);
      expect(s).to.include({ status: 'approved', failed: 0, sent: DEVICES, skipped: 0, total_recipients: DEVICES });
      expect(sim().stats().byStatus[String(status)], `${status} answers were given`).to.be.greaterThan(0);
      expect(unreached(), 'devices never accepted by the gateway').to.deep.equal([]);
    });
  }
});
