// Shutdown: a sender told to stop while a chunk waits between retries does not
// sleep out its back-off past the shutdown grace — it hands the chunk back unrecorded and exits 0
// (a forced exit at the end of the grace is exit 1) — and another sender then delivers the chunk
// with exact counts.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { createKey } from '../../core/apps/keys.js';
import { startApnsSim, type ApnsSim } from '../../apns-sim/index.js';
import { addDevices, createTestApp, type TestApp } from '../delivery/fixtures.js';
import { apiClient, startRole, type Proc } from '../e2e/harness.js';
import { waitFor } from '../support/wait.js';

const DEVICES = 40;

describe('faults: SIGTERM during a retry back-off', function () {
  this.timeout(180_000);
  const env = useTestEnv({ bus: false });
  let sim: ApnsSim;
  let t: TestApp;
  let key: string;
  let tokens: string[];
  const procs: Proc[] = [];

  before(async () => {
    t = await createTestApp(env.pool, 'shutdown');
    ({ key } = await createKey(env.pool, t.app.id, { name: 'shutdown' }));
    tokens = await addDevices(env.pool, t.app.id, DEVICES);
    // Every device is refused twice (503, retryable), then accepted.
    sim = await startApnsSim({ keys: [{ keyId: t.key.keyId, teamId: t.teamId, publicKey: t.key.publicKeyPem }], rules: [{ prefix: '', status: 503, times: 2 }], maxDeliveries: 0 });
  });
  after(async () => {
    await Promise.all(procs.map((p) => p.kill('SIGKILL')));
    await sim?.close();
  });

  const childEnv = () =>
    env.childEnv({
      HERALD_APNS_URL: sim.url,
      HERALD_APNS_CA_FILE: sim.caFile,
      HERALD_SENDER_LEASE_MS: '2000',
      // The back-off after the first refusal (2.5 to 5 s: the 5 s cap, jittered) outlasts the grace (2 s).
      HERALD_SENDER_RETRY_BASE_MS: '60000',
      HERALD_SHUTDOWN_GRACE_SECONDS: '2',
    });

  it('hands the chunk back and exits 0; another sender finishes the send exactly', async () => {
    const api = await startRole('api', childEnv());
    const first = await startRole('sender', childEnv());
    procs.push(api, first);
    const client = apiClient(api.port, key);
    const created = await client.post('/api/v1/notifications', { app_id: t.app.id, included_segments: ['All'], contents: { en: 'stop' } });
    expect(created.status).to.equal(202);
    // Every device has had its first (refused) attempt: the chunk now sleeps its back-off.
    await waitFor("every device's first attempt at the simulator", () => tokens.every((tk) => sim.attempts(tk) >= 1), 30_000, 50);
    expect(await first.kill('SIGTERM'), first.output().slice(-2000)).to.equal(0);
    // Nothing was recorded by the stopped sender.
    const mid = await client.get(`/api/v1/notifications/${created.body.id}`);
    expect(mid.body).to.include({ sent: 0, failed: 0 });

    const second = await startRole('sender', childEnv());
    procs.push(second);
    const final = await waitFor(`send ${created.body.id} approved or draft`, async () => {
      const body = (await client.get(`/api/v1/notifications/${created.body.id}`)).body;
      return (body.status === 'approved' || body.status === 'draft') && body;
    }, 120_000, 100);
    expect(final).to.include({ status: 'approved', total_recipients: DEVICES, sent: DEVICES, failed: 0, skipped: 0 });
    expect(await second.kill('SIGTERM')).to.equal(0);
    expect(await api.kill('SIGTERM')).to.equal(0);
  });
});
