// Live Activity tokens Apple refuses, on real PostgreSQL against the simulator: Unregistered and
// ExpiredToken (410) and BadDeviceToken (400) remove the refused update or push-to-start token,
// never the install's subscription; a token registered again after Apple's 410 timestamp stays;
// the others of the activity are delivered and kept. Update tokens of activities that have
// certainly ended (registered over 12 hours ago) are dropped by the scheduler's sweep. An end
// drops only the tokens it was delivered to.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { dropEndedActivityTokens, ENDED_ACTIVITY_HOURS, removeRefusedTokens } from '../../core/live-activities/tokens.js';
import type { TestApi } from '../support/api-server.js';
import { startDeliveryStack, token, waitFinal, type DeliveryStack, type TestApp } from './fixtures.js';
import { waitFor } from '../support/wait.js';

describe('delivery: Live Activity token hygiene', function () {
  this.timeout(120_000);
  const env = useTestEnv();
  let stack: DeliveryStack;
  let api: TestApi;
  let app: TestApp;
  let key: string;
  const HOUR_AGO = Date.now() - 3_600_000;

  before(async () => {
    stack = await startDeliveryStack(env, 'lahygiene', {
      rules: [
        { prefix: 'dead', status: 410, reason: 'Unregistered' },
        { prefix: 'e0e0', status: 410, reason: 'ExpiredToken' },
        { prefix: 'bade', status: 400, reason: 'BadDeviceToken' },
        // Apple found it invalid an hour ago; the app registered it since: it stays.
        { prefix: 'feed', status: 410, reason: 'Unregistered', timestamp: HOUR_AGO },
        // Fails this device only (kept: the token itself is fine).
        { prefix: '1a1a', status: 400, reason: 'PayloadTooLarge' },
        // Accepted, after 3 s: the end's chunk is in flight meanwhile.
        { prefix: 'de1a', delayMs: 3000 },
      ],
    });
    ({ api, app, key } = stack);
  });
  after(() => stack?.close());

  async function install(n: number): Promise<string> {
    const res = await api.request('POST', `/api/v1/apps/${app.app.id}/subscriptions`, { body: { token: token('c0', n), external_id: `rider-${n}` } });
    return res.body.id;
  }
  const setUpdate = (sub: string, activity: string, pushToken: string) =>
    api.request('POST', `/api/v1/apps/${app.app.id}/live_activities/${activity}/token`, { body: { subscription_id: sub, push_token: pushToken } });
  const tokensOf = async (kind: string, activity: string) =>
    (await env.pool.query('SELECT token FROM live_activity_tokens WHERE app_id = $1 AND kind = $2 AND activity = $3 ORDER BY token', [app.app.id, kind, activity])).rows.map((r) => r.token);

  it('update tokens: Unregistered, ExpiredToken and BadDeviceToken go, the rest stay; the installs stay subscribed', async () => {
    const subs = await Promise.all([1, 2, 3, 4, 5].map(install));
    const given = [token('dead', 1), token('e0e0', 1), token('bade', 1), token('feed', 1), token('0a', 1)];
    for (let i = 0; i < subs.length; i++) expect((await setUpdate(subs[i], 'ride-1', given[i])).status).to.equal(200);
    const res = await api.request('POST', `/api/v1/apps/${app.app.id}/live_activities/ride-1/notifications`, { key, body: { event: 'update', event_updates: { eta: 3 } } });
    const { final } = await waitFinal(env.pool, Number(res.body.id));
    expect(final).to.include({ total_recipients: 5, sent: 1, failed: 4 });
    expect(await tokensOf('update', 'ride-1')).to.deep.equal([token('0a', 1), token('feed', 1)]);
    const subscribed = await env.pool.query('SELECT count(*)::int AS n FROM subscriptions WHERE id = ANY($1::uuid[]) AND subscribed', [subs]);
    expect(subscribed.rows[0].n).to.equal(5);
  });

  it('an end drops only the tokens it was delivered to: not a failed one, nor one registered after the end was accepted', async () => {
    const [reached, failing, later] = await Promise.all([31, 32, 33].map(install));
    expect((await setUpdate(reached, 'ride-9', token('de1a', 1))).status).to.equal(200);
    expect((await setUpdate(failing, 'ride-9', token('1a1a', 1))).status).to.equal(200);
    const res = await api.request('POST', `/api/v1/apps/${app.app.id}/live_activities/ride-9/notifications`, { key, body: { event: 'end', event_updates: { eta: 0 } } });
    expect(res.status).to.equal(200);
    // While the end is in flight (the simulator holds its answer), a new activity reuses the id.
    await waitFor('the end reaching the simulator', () => stack.sim.deliveries(token('de1a', 1)).length > 0, 10_000, 10);
    expect((await setUpdate(later, 'ride-9', token('0e', 1))).status).to.equal(200);
    const { final } = await waitFinal(env.pool, Number(res.body.id));
    expect(final).to.include({ total_recipients: 2, sent: 1, failed: 1 });
    expect(await tokensOf('update', 'ride-9')).to.deep.equal([token('0e', 1), token('1a1a', 1)]);
  });

  it("a refusal removes the refused install's row (by its primary key), not another install's with the same token", async () => {
    const [refused, other] = await Promise.all([41, 42].map(install));
    await setUpdate(refused, 'ride-10', token('0f', 1));
    await setUpdate(other, 'ride-10', token('0f', 1));
    await removeRefusedTokens(env.pool, app.app.id, { event: 'update', activityId: 'ride-10', contentState: {}, timestamp: 0 }, [
      { subscriptionId: refused, token: token('0f', 1), reason: 'Unregistered' },
    ]);
    const left = await env.pool.query(`SELECT subscription_id::text AS id FROM live_activity_tokens WHERE app_id = $1 AND activity = 'ride-10'`, [app.app.id]);
    expect(left.rows).to.deep.equal([{ id: other }]);
  });

  it(`drops update tokens registered over ${ENDED_ACTIVITY_HOURS} hours ago, never push-to-start tokens`, async () => {
    const sub = await install(21);
    await setUpdate(sub, 'old-ride', token('0c', 1));
    await setUpdate(sub, 'new-ride', token('0c', 2));
    await api.request('PUT', `/api/v1/apps/${app.app.id}/activities/tokens/start/OldAttributes/subscriptions/${sub}`, { body: { activity_token: token('0c', 3) } });
    await env.pool.query(
      `UPDATE live_activity_tokens SET updated_at = now() - make_interval(hours => $2 + 1) WHERE subscription_id = $1 AND activity IN ('old-ride', 'OldAttributes')`,
      [sub, ENDED_ACTIVITY_HOURS],
    );
    expect(await dropEndedActivityTokens(env.pool)).to.equal(1);
    const left = await env.pool.query('SELECT kind, activity FROM live_activity_tokens WHERE subscription_id = $1 ORDER BY kind DESC', [sub]);
    expect(left.rows).to.deep.equal([{ kind: 'update', activity: 'new-ride' }, { kind: 'start', activity: 'OldAttributes' }]);
  });

  it('push-to-start tokens: a refused one goes, a good one stays', async () => {
    const [good, gone] = await Promise.all([install(11), install(12)]);
    const put = (sub: string, t: string) =>
      api.request('PUT', `/api/v1/apps/${app.app.id}/activities/tokens/start/RideAttributes/subscriptions/${sub}`, { body: { activity_token: t } });
    expect((await put(good, token('0b', 1))).status).to.equal(200);
    expect((await put(gone, token('dead', 2))).status).to.equal(200);
    const res = await api.request('POST', `/api/v1/apps/${app.app.id}/activities/activity/RideAttributes`, {
      key,
      body: { activity_id: 'ride-2', event_attributes: { driver: 'Ana' }, event_updates: { eta: 9 }, contents: { en: 'Ana is on her way' }, include_aliases: { external_id: ['rider-11', 'rider-12'] } },
    });
    expect(res.status).to.equal(201);
    const { final } = await waitFinal(env.pool, Number(res.body.notification_id));
    expect(final).to.include({ sent: 1, failed: 1 });
    expect(await tokensOf('start', 'RideAttributes')).to.deep.equal([token('0b', 1)]);
  });
});
