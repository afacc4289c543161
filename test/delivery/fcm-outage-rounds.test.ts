// Whether FCM is out is decided per round of answers, as for Apple (issue 37, sender/gateway-rounds.ts):
// a chunk of Android devices whose first half got a 200 and whose second half then meets a total 503
// outage spends no attempt through the outage, so when FCM is back every device is sent and none
// failed. Before, FCM's rounds (sender/fcm-rounds.ts) took the chunk's earlier 200s as FCM deciding
// and spent every later 503 as an attempt until maxAttempts (4): the second half ended `failed`.
// Real PostgreSQL, NATS and Redis; fcm-sim stands in for Google.
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { setFcmCredentials } from '../../core/fcm/credentials-store.js';
import { startApnsSim, type ApnsSim } from '../../apns-sim/index.js';
import { startFcmSim, type FcmSim } from '../../fcm-sim/index.js';
import type { Sender } from '../../sender/index.js';
import { waitFor } from '../support/wait.js';
import { makeServiceAccount } from '../fcm/helpers.js';
import { createTestApp, send, startTestSender, stats, waitFinal } from './fixtures.js';

const HALF = 100; // one chunk of 200 devices
const tokens = (prefix: string) => Array.from({ length: HALF }, (_, i) => `${prefix}${i}:APA91b${'x'.repeat(140)}`);

describe('delivery: an FCM outage decided per round', function () {
  this.timeout(120_000);
  const env = useTestEnv();
  const sa = makeServiceAccount('herald-fcm-outage');
  let apns: ApnsSim | undefined;
  let fcm: FcmSim | undefined;
  let sender: Sender | undefined;

  after(async () => {
    await sender?.stop();
    await Promise.all([apns?.close(), fcm?.close()]);
  });

  it('Android: first half 200, second half a total 503 outage, then recovery: 0 failed, all sent', async () => {
    const certDir = await mkdtemp(join(tmpdir(), 'herald-fcm-outage-'));
    // FCM answers the first half, and from then on answers nothing but 503.
    fcm = await startFcmSim({ certDir, accounts: [{ clientEmail: sa.account.clientEmail, projectId: sa.account.projectId, publicKey: sa.publicKey }], rules: [{ prefix: 'b0', status: 503 }] });
    apns = await startApnsSim();
    const t = await createTestApp(env.pool, 'fcm-outage-rounds');
    await setFcmCredentials(env.pool, t.app.id, { ...sa.account, tokenUri: fcm.tokenUri });
    const early = tokens('a0');
    const late = tokens('b0');
    await env.pool.query(
      `INSERT INTO subscriptions (id, app_id, token, platform, last_active)
       SELECT gen_random_uuid(), $1, t, 'android', now() FROM unnest($2::text[]) AS t`,
      [t.app.id, [...early, ...late]],
    );
    sender = await startTestSender(env, apns, {}, { fcm: { url: fcm.url, ca: await readFile(fcm.caFile, 'utf8') } });
    const created = await send(env, t.app, { included_segments: ['Subscribed Users'], contents: { en: 'outage' } });
    const id = Number(created.body.id);
    // Well past the 4 attempts the old rule allowed each device: every late device asked 6 times.
    // (Or the send ended first: what the old rule did, failing the late half.)
    await waitFor('six rounds of the outage', async () => late.every((tok) => fcm!.attempts(tok) >= 6) || (await stats(env.pool, id)).status === 'approved', 60_000, 50);
    fcm.setRules([]);
    const { final } = await waitFinal(env.pool, id);
    expect(final).to.include({ status: 'approved', sent: 2 * HALF, failed: 0 });
    for (const tok of [...early, ...late]) expect(fcm.deliveries(tok).some((d) => d.status === 200), tok).to.equal(true);
    // The sender's metrics say it as FCM's: the outage held and over, each answer timed by the client.
    const m = sender.metrics;
    expect((await m.deliveries.get()).values.filter((v) => v.labels.gateway === 'fcm').map((v) => [v.labels.outcome, v.value])).to.deep.equal([['sent', 2 * HALF]]);
    expect((await m.fcmHeld.get()).values[0].value).to.be.at.least(5 * HALF);
    expect((await m.fcmUnavailable.get()).values[0].value).to.equal(0);
    const answers = Object.fromEntries((await m.fcmSeconds.get()).values.filter((v) => v.metricName === 'herald_sender_fcm_request_duration_seconds_count').map((v) => [v.labels.status, v.value]));
    expect(answers['200']).to.equal(2 * HALF);
    expect(answers['503']).to.be.at.least(5 * HALF);
    expect((await m.apnsHeld.get()).values[0]?.value ?? 0).to.equal(0);
  });
});
