// Whether Apple is out is decided per round of answers (issue 37, sender/retry-rounds.ts): a
// chunk whose first half got a 200 and whose second half then meets a total 503 outage spends no
// attempt through the outage, so when Apple is back every device is sent and none failed. Before,
// the chunk's earlier 200s made every later 503 spend an attempt until maxAttempts (4): the second
// half ended `failed`. Real PostgreSQL, NATS and Redis; the simulator stands in for Apple.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { startApnsSim, type ApnsSim } from '../../apns-sim/index.js';
import type { Sender } from '../../sender/index.js';
import { waitFor } from '../support/wait.js';
import { addDevices, createTestApp, send, startTestSender, stats, waitFinal } from './fixtures.js';

const HALF = 100; // one chunk of 200 devices

describe('delivery: an outage decided per round', function () {
  this.timeout(120_000);
  const env = useTestEnv();
  let sim: ApnsSim | undefined;
  let sender: Sender | undefined;

  after(async () => {
    await sender?.stop();
    await sim?.close();
  });

  it('first half 200, second half a total 503 outage, then recovery: 0 failed, all sent', async () => {
    const t = await createTestApp(env.pool, 'outage-rounds');
    await addDevices(env.pool, t.app.id, HALF, { prefix: 'a0' });
    const late = await addDevices(env.pool, t.app.id, HALF, { prefix: 'b0' });
    // Apple answers the first half, and from then on answers nothing but 503.
    sim = await startApnsSim({ keys: [{ keyId: t.key.keyId, teamId: t.teamId, publicKey: t.key.publicKeyPem }], rules: [{ prefix: 'b0', status: 503 }] });
    sender = await startTestSender(env, sim);
    const created = await send(env, t.app, { included_segments: ['Subscribed Users'], contents: { en: 'outage' } });
    // Well past the 4 attempts the old rule allowed each device: every late device asked 6 times.
    // (Or the send ended first: what the old rule did, failing the late half.)
    const id = Number(created.body.id);
    await waitFor('six rounds of the outage', async () => late.every((tok) => sim!.attempts(tok) >= 6) || (await stats(env.pool, id)).status === 'approved', 60_000, 50);
    sim.setRules([]);
    const { final } = await waitFinal(env.pool, id);
    expect(final).to.include({ status: 'approved', sent: 2 * HALF, failed: 0 });
    for (const tok of late) expect(sim.deliveries(tok).some((d) => d.status === 200), tok).to.equal(true);
  });
});
