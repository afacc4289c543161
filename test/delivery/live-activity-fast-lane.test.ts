// The senders' fast lane: slots that take Live Activity pushes only, on an APNs connection of
// their own, so an update never waits for a broadcast. A sender with four ordinary slots and two
// lane slots: the broadcast's chunks hold the ordinary ones (the simulator keeps their answers
// back), and the update is delivered and recorded meanwhile. Also: an update to at most 500
// tokens is recorded with its one chunk in the accept statement; a larger one is planned into
// chunks of 500 installs.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import type { TestApi } from '../support/api-server.js';
import { addDevices, startDeliveryStack, waitFinal, type DeliveryStack, type TestApp } from './fixtures.js';
import { waitFor } from '../support/wait.js';

describe('delivery: the Live Activity fast lane', function () {
  this.timeout(120_000);
  const env = useTestEnv();
  let stack: DeliveryStack;
  let api: TestApi;
  let app: TestApp;
  let key: string;

  before(async () => {
    // The broadcast's devices (prefix b0) are answered only after a minute: its chunk holds its slot.
    stack = await startDeliveryStack(env, 'lafastlane', { rules: [{ prefix: 'b0', delayMs: 60_000 }] });
    ({ api, app, key } = stack);
  });
  // The simulator before the sender: the held answers end as lost connections, handed back at stop.
  after(() => stack?.close({ simBeforeSender: true }));

  /** `n` installs with an update token for `activity`, inserted in one statement (tokens from `prefix`). */
  async function activityTokens(activity: string, n: number, prefix: string): Promise<void> {
    await env.pool.query(
      `WITH s AS (
         INSERT INTO subscriptions (id, app_id, token) SELECT gen_random_uuid(), $1, $3 || lpad(to_hex(i), 60, '0') FROM generate_series(1, $2::int) i RETURNING id, token)
       INSERT INTO live_activity_tokens (app_id, kind, activity, subscription_id, token)
       SELECT $1, 'update', $4, id, '0d' || substr(token, 3) FROM s`,
      [app.app.id, n, `d${prefix}`.slice(0, 4), activity],
    );
  }
  const update = (activity: string) =>
    api.request('POST', `/api/v1/apps/${app.app.id}/live_activities/${activity}/notifications`, { key, body: { event: 'update', event_updates: { n: 1 } } });

  it('records an update to at most 500 tokens with its chunk in the answer, a larger one in chunks of 500', async () => {
    await activityTokens('small-1', 3, 'a1');
    await activityTokens('large-1', 1_001, 'a2');
    const small = await update('small-1');
    const chunk = await env.pool.query('SELECT s.chunks_total, cardinality(k.entries) AS n FROM sends s JOIN send_chunks k ON k.send_id = s.id WHERE s.id = $1', [Number(small.body.id)]);
    expect(chunk.rows).to.deep.equal([{ chunks_total: 1, n: 3 }]);
    const large = await update('large-1');
    const { final } = await waitFinal(env.pool, Number(large.body.id));
    expect(final).to.include({ total_recipients: 1_001, sent: 1_001 });
    const chunks = await env.pool.query('SELECT planned FROM send_chunks WHERE send_id = $1 ORDER BY chunk', [Number(large.body.id)]);
    expect(chunks.rows.map((r) => r.planned)).to.deep.equal([500, 500, 1]);
    expect((await waitFinal(env.pool, Number(small.body.id))).final).to.include({ sent: 3 });
  });

  it("delivers an update while a broadcast's chunks hold every ordinary slot", async () => {
    await env.pool.query('UPDATE subscriptions SET subscribed = false WHERE app_id = $1', [app.app.id]); // the broadcast reaches only its own devices
    await addDevices(env.pool, app.app.id, 2_000, { prefix: 'b0' });
    const broadcast = await api.request('POST', '/api/v1/notifications', { key, body: { app_id: app.app.id, contents: { en: 'Sale' }, included_segments: ['Subscribed Users'] } });
    expect(broadcast.status).to.equal(202);
    // The startTestSender's 4 ordinary slots each hold a chunk of the broadcast (4 × 500 devices).
    await waitFor('4 chunks of the broadcast working', async () =>
      (await env.pool.query(`SELECT count(*)::int AS n FROM send_chunks WHERE send_id = $1 AND state = 'working'`, [broadcast.body.id])).rows[0].n === 4, 30_000, 50);
    await activityTokens('match-1', 2, 'c1');
    const res = await update('match-1');
    const { final } = await waitFinal(env.pool, Number(res.body.id), 30_000);
    expect(final).to.include({ sent: 2, status: 'approved' });
    // Meanwhile the broadcast delivered nothing: its chunks still wait for the simulator, and none
    // of its pushes has even timed out (the update did not wait behind them on a connection).
    const b = await env.pool.query('SELECT sent, chunks_done FROM sends WHERE id = $1', [broadcast.body.id]);
    expect(b.rows[0]).to.deep.equal({ sent: 0, chunks_done: 0 });
    expect((await stack.sender.metrics.apnsHeld.get()).values.reduce((n, v) => n + v.value, 0)).to.equal(0);
  });
});
