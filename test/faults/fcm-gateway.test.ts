// A bad day at Google's end (issue 39): FCM (and its token endpoint) unreachable for 10 s in the
// middle of a send, and FCM answering 503 for 10 s. FCM refused no device, so none may count as
// failed: every send ends `approved` with exact counts and `failed` 0, every Android device got a
// 200, and the sender says when the outage began and when it ended (one log line each). Real api
// and sender processes on this file's own database; fcm-sim stands in for Google.
import { expect } from 'chai';
import { createKey } from '../../core/apps/keys.js';
import { setFcmCredentials } from '../../core/fcm/credentials-store.js';
import { startFcmSim, type FcmSim, type FcmSimOptions } from '../../fcm-sim/index.js';
import { createTestApp } from '../delivery/fixtures.js';
import { apiClient, sleep, startRole, type Proc } from '../e2e/harness.js';
import { useTestEnv } from '../env/index.js';
import { makeServiceAccount } from '../fcm/helpers.js';
import { waitFor } from '../support/wait.js';

const DEVICES = 1500; // three chunks
const OUTAGE_MS = 10_000;
const THROTTLE = 3000; // devices a minute: a chunk every 10 s, so the outage falls mid-send

describe('faults: FCM unreachable or failing', function () {
  this.timeout(300_000);
  const env = useTestEnv();
  const sa = makeServiceAccount('herald-faults');
  let sims: FcmSim[] = [];
  let simOptions: FcmSimOptions;
  let api: Proc;
  let sender: Proc;
  let client: ReturnType<typeof apiClient>;
  let appId: string;
  const tokens = Array.from({ length: DEVICES }, (_, i) => `f${i}:APA91b${'z'.repeat(150)}`);

  const sim = () => sims[sims.length - 1];

  before(async function () {
    this.timeout(120_000);
    const t = await createTestApp(env.pool, 'fcmfaults');
    appId = t.app.id;
    await env.pool.query(
      `INSERT INTO subscriptions (id, app_id, token, platform, last_active) SELECT gen_random_uuid(), $1, t, 'android', now() FROM unnest($2::text[]) AS u(t)`,
      [appId, tokens],
    );
    simOptions = { accounts: [{ clientEmail: sa.account.clientEmail, projectId: sa.account.projectId, publicKey: sa.publicKey }], maxDeliveries: 100_000 };
    sims = [await startFcmSim(simOptions)];
    const first = sim();
    simOptions = { ...simOptions, port: Number(new URL(first.url).port), tokenPort: Number(new URL(first.tokenUri).port), certDir: first.caFile.replace(/\/[^/]+$/, '') };
    await setFcmCredentials(env.pool, appId, { ...sa.account, tokenUri: first.tokenUri });
    const childEnv = env.childEnv({ HERALD_FCM_URL: first.url, HERALD_FCM_CA_FILE: first.caFile, HERALD_SENDER_LEASE_MS: '5000', HERALD_SENDER_RETRY_BASE_MS: '50' });
    [api, sender] = await Promise.all([startRole('api', childEnv), startRole('sender', { ...childEnv, HERALD_LOG_LEVEL: 'info' })]);
    const { key } = await createKey(env.pool, appId, { name: 'fcm-faults' });
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

  const outageLines = () => sender.output().split('\n').filter((l) => l.includes('"dependency":"FCM gateway"'));

  it('unreachable for 10 s mid-send (back as a new simulator that knows none of the old access tokens): nothing failed, every device reached, the outage logged once', async () => {
    const id = await broadcast('unreachable');
    await waitFor('the first chunk delivered', async () => (await client.get(`/api/v1/notifications/${id}`)).body.sent >= 500, 60_000);
    await sim().close();
    await waitFor('the sender sees the outage', () => outageLines().some((l) => l.includes('waiting for it to come back')), 60_000);
    await sleep(OUTAGE_MS); // the outage's length is the fault itself
    sims.push(await startFcmSim(simOptions));

    const s = await final(id);
    expect(s).to.include({ status: 'approved', failed: 0, sent: DEVICES, skipped: 0, total_recipients: DEVICES, remaining: 0 });
    expect(unreached(), 'devices never accepted by FCM').to.deep.equal([]);
    const lines = outageLines();
    expect(lines[0], 'the outage start is logged').to.include('unavailable; waiting for it to come back');
    expect(lines[lines.length - 1], 'the outage end is logged').to.include('is back');
    expect(lines.length, 'start and end lines alternate, one each per outage').to.equal(2 * lines.filter((l) => l.includes('waiting for it to come back')).length);
  });

  it('answering 503 for 10 s: nothing failed, every device reached', async () => {
    for (const s of sims) s.reset();
    sim().setRules([{ prefix: '', status: 503 }]);
    const id = await broadcast('answering 503');
    await waitFor('the sender holds 503 answers', () => (sim().stats().byStatus['503'] ?? 0) > 0, 60_000);
    await sleep(OUTAGE_MS);
    sim().setRules([]);

    const s = await final(id);
    expect(s).to.include({ status: 'approved', failed: 0, sent: DEVICES, skipped: 0, total_recipients: DEVICES });
    expect(sim().stats().byErrorCode.UNAVAILABLE, '503 answers were given').to.be.greaterThan(0);
    expect(unreached(), 'devices never accepted by FCM').to.deep.equal([]);
  });
});
