// Cancel of a send the sender is delivering (DELETE /api/v1/notifications/{id}), against the APNs
// simulator: chunks in flight finish and count, no chunk starts after the cancel, the send ends
// approved with the devices reached, and every device is counted once (processed + left_out).
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { startApnsSim, type ApnsSim } from '../../apns-sim/index.js';
import type { Sender } from '../../sender/index.js';
import { createKey } from '../../core/apps/keys.js';
import { useTestApi } from '../support/api-server.js';
import { addDevices, createTestApp, stats, startTestSender, waitFinal, type TestApp } from './fixtures.js';
import { waitFor } from '../support/wait.js';

describe('delivery: cancel a running send', function () {
  this.timeout(90_000);
  const env = useTestEnv();
  const api = useTestApi(env);
  let sim: ApnsSim;
  let sender: Sender;
  let main: TestApp;
  let key: string;

  before(async () => {
    main = await createTestApp(env.pool, 'cancel');
    key = (await createKey(env.pool, main.app.id)).key;
    sim = await startApnsSim({
      keys: [{ keyId: main.key.keyId, teamId: main.teamId, publicKey: main.key.publicKeyPem }],
      rules: [{ prefix: '5104', delayMs: 200 }],
    });
    sender = await startTestSender(env, sim);
  });
  after(async () => {
    await sender?.stop();
    await sim?.close();
  });

  it('leaves out the chunks not started and ends approved with the devices reached', async () => {
    await addDevices(env.pool, main.app.id, 6000, { prefix: '5104' }); // 200 ms per answer: ~12 chunks of 500
    const created = await api.request('POST', '/api/v1/notifications', { key, body: { app_id: main.app.id, contents: { en: 'x' }, included_segments: ['All'] } });
    const id = created.body.id as number;
    await waitFor(`a device of send ${id} reached`, async () => (await stats(env.pool, id)).sent > 0, 10_000, 25);
    const canceled = await api.request('DELETE', `/api/v1/notifications/${id}?app_id=${main.app.id}`, { key });
    expect(canceled.status).to.equal(200);
    const { final } = await waitFinal(env.pool, id);
    const row = (await env.pool.query('SELECT left_out, stopped, canceled_at FROM sends WHERE id = $1', [id])).rows[0];
    expect(final).to.include({ status: 'approved', remaining: 0 });
    expect(row.stopped).to.equal('canceled');
    expect(row.canceled_at).to.be.instanceOf(Date);
    expect(row.left_out).to.be.greaterThan(0);
    expect(final.processed + row.left_out).to.equal(6000);
    expect(final.sent).to.equal(sim.stats().requests);
    // Every chunk ended: done (started before the cancel) or left out without ever being claimed.
    const chunks = await env.pool.query(`SELECT state, claims FROM send_chunks WHERE send_id = $1`, [id]);
    for (const c of chunks.rows) expect(c.state === 'done' || (c.state === 'left_out' && c.claims === 0), JSON.stringify(c)).to.equal(true);
    const body = (await api.request('GET', `/api/v1/notifications/${id}`, { key })).body;
    expect(body).to.include({ canceled: true, status: 'approved', sent: final.sent });
    expect(body.message).to.match(/^Sent to [\d,]+ devices before it was canceled; [\d,]+ devices were not sent and will not be\.$/);
  });
});
