// Tokens of every length the api accepts, end to end: installs and their Live Activity update and
// push-to-start tokens registered as OneSignal's iOS SDK does, sends made with the official client
// (createNotification, updateLiveActivity, startLiveActivity; only its base server changed), the
// planner, chunks and lean transport of every send, and the simulator, which must receive each
// token exactly as registered. Until issue 26 a token over 100 characters never left the sender
// and was removed as BadDeviceToken. A token one digit too long is refused at the api; a stored
// value the transport cannot frame fails that device only, and keeps the install and its token.
import { expect } from 'chai';
import * as OneSignal from '@onesignal/node-onesignal';
import { useTestEnv } from '../env/index.js';
import type { ApnsSim } from '../../apns-sim/index.js';
import type { TestApi } from '../support/api-server.js';
import { DEVICE_TOKEN_MAX_HEX, DEVICE_TOKEN_MIN_HEX } from '../../core/formats/device-token.js';
import { startDeliveryStack, waitFinal, type DeliveryStack, type TestApp } from './fixtures.js';

/** 64, 128 and 200 hex digits: 32, 64 and 100 bytes, the last the longest the api accepts. */
const LENGTHS = [64, 128, DEVICE_TOKEN_MAX_HEX];
/** A token of `digits` hex digits, distinct per `seed` (two hex digits). */
const hexToken = (seed: string, digits: number) => (seed + 'f0e1d2c3b4a59687'.repeat(13)).slice(0, digits);
const TOO_LONG = `${DEVICE_TOKEN_MIN_HEX} to ${DEVICE_TOKEN_MAX_HEX} digits (0-9, a-f).`;

describe('delivery: tokens of 32, 64 and 100 bytes through the official client', function () {
  this.timeout(120_000);
  const env = useTestEnv();
  let stack: DeliveryStack;
  let sim: ApnsSim;
  let api: TestApi;
  let app: TestApp;
  let client: OneSignal.DefaultApi;

  before(async () => {
    stack = await startDeliveryStack(env, 'longtokens');
    ({ sim, api, app, client } = stack);
  });
  after(() => stack?.close());
  beforeEach(() => sim.reset());

  const register = (token: string) => api.request('POST', `/api/v1/apps/${app.app.id}/subscriptions`, { body: { token } });
  const setUpdate = (sub: string, activity: string, pushToken: string) =>
    api.request('POST', `/api/v1/apps/${app.app.id}/live_activities/${activity}/token`, { body: { subscription_id: sub, push_token: pushToken, device_type: 0 } });
  const setStart = (sub: string, type: string, activityToken: string) =>
    api.request('PUT', `/api/v1/apps/${app.app.id}/activities/tokens/start/${type}/subscriptions/${sub}`, { body: { activity_token: activityToken, device_type: 0 } });
  async function install(token: string): Promise<string> {
    const res = await register(token);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.id;
  }
  /** The one push the simulator received for `token`, accepted, to that very token. */
  function receivedOnce(token: string): void {
    const got = sim.deliveries(token);
    expect(got, `${token.length} digits`).to.have.length(1);
    expect(got[0]).to.include({ token, status: 200 });
  }
  const subscribed = async (ids: string[]) =>
    (await env.pool.query('SELECT id::text, subscribed, unsubscribed_reason FROM subscriptions WHERE id = ANY($1::uuid[]) ORDER BY id', [ids])).rows;

  it(`install tokens of 64, 128 and ${DEVICE_TOKEN_MAX_HEX} hex digits (and the shortest, ${DEVICE_TOKEN_MIN_HEX}) are delivered by createNotification`, async () => {
    const tokens = [DEVICE_TOKEN_MIN_HEX, ...LENGTHS].map((n) => hexToken('a1', n));
    const ids = await Promise.all(tokens.map(install));
    const res = await client.createNotification(Object.assign(new OneSignal.Notification(), { app_id: app.app.id, include_subscription_ids: ids, contents: { en: 'long tokens' } }));
    const { final } = await waitFinal(env.pool, Number(res.id));
    expect(final).to.include({ status: 'approved', sent: tokens.length, failed: 0 });
    tokens.forEach(receivedOnce);
    expect((await subscribed(ids)).every((r) => r.subscribed)).to.equal(true);
  });

  it(`Live Activity update tokens of 64, 128 and ${DEVICE_TOKEN_MAX_HEX} hex digits are delivered by updateLiveActivity, and kept`, async () => {
    const ids = await Promise.all(LENGTHS.map((_, i) => install(hexToken(`b${i + 3}`, 64))));
    const tokens = LENGTHS.map((n) => hexToken('b2', n));
    for (const [i, id] of ids.entries()) expect((await setUpdate(id, 'long-ride', tokens[i])).status).to.equal(200);
    const res = await client.updateLiveActivity(app.app.id, 'long-ride', Object.assign(new OneSignal.UpdateLiveActivityRequest(), { name: 'eta', event: 'update', event_updates: { eta: 4 } }));
    const { final } = await waitFinal(env.pool, Number(res.id));
    expect(final).to.include({ status: 'approved', sent: 3, failed: 0 });
    tokens.forEach(receivedOnce);
    const kept = await env.pool.query(`SELECT token FROM live_activity_tokens WHERE app_id = $1 AND activity = 'long-ride' ORDER BY length(token)`, [app.app.id]);
    expect(kept.rows.map((r) => r.token)).to.deep.equal(tokens);
  });

  it(`push-to-start tokens of 64, 128 and ${DEVICE_TOKEN_MAX_HEX} hex digits are delivered by startLiveActivity`, async () => {
    const ids = await Promise.all(LENGTHS.map((_, i) => install(hexToken(`c${i + 3}`, 64))));
    const tokens = LENGTHS.map((n) => hexToken('c2', n));
    for (const [i, id] of ids.entries()) expect((await setStart(id, 'LongAttributes', tokens[i])).status).to.equal(200);
    const res = await client.startLiveActivity(
      app.app.id,
      'LongAttributes',
      Object.assign(new OneSignal.StartLiveActivityRequest(), {
        name: 'go', event: 'start', activity_id: 'long-1', event_attributes: { from: 'A' }, event_updates: { eta: 9 }, contents: { en: 'On the way' }, headings: { en: 'Ride' },
        include_subscription_ids: ids,
      }),
    );
    const { final } = await waitFinal(env.pool, Number(res.notification_id));
    expect(final).to.include({ status: 'approved', sent: 3, failed: 0 });
    tokens.forEach(receivedOnce);
  });

  it(`refuses ${DEVICE_TOKEN_MAX_HEX + 1} and ${DEVICE_TOKEN_MIN_HEX - 1} hex digits with a 422 naming the field and the lengths, on each token call`, async () => {
    const id = await install(hexToken('d1', 64));
    for (const digits of [DEVICE_TOKEN_MAX_HEX + 1, DEVICE_TOKEN_MIN_HEX - 1]) {
      const t = hexToken('d2', digits);
      const answers = [await register(t), await setUpdate(id, 'long-ride', t), await setStart(id, 'LongAttributes', t)];
      expect(answers.map((r) => [r.status, r.body.errors])).to.deep.equal([
        [422, [`token must be the APNs device token in hex, ${TOO_LONG}`]],
        [422, [`push_token must be the Live Activity's APNs token in hex, ${TOO_LONG}`]],
        [422, [`activity_token must be the Live Activity's APNs token in hex, ${TOO_LONG}`]],
      ]);
    }
    const stored = await env.pool.query('SELECT count(*)::int AS n FROM live_activity_tokens WHERE subscription_id = $1', [id]);
    expect(stored.rows[0].n).to.equal(0);
  });

  it('a stored token the transport cannot frame fails that device as Unframeable (counted); the install stays subscribed and the Live Activity token stays', async () => {
    // Rows no api call makes (a control byte): as an older release or a hand-made import might have left them.
    const [good, broken] = await Promise.all([install(hexToken('e1', 64)), install(hexToken('e2', 64))]);
    await env.pool.query(`UPDATE subscriptions SET token = $2 WHERE id = $1`, [broken, `${hexToken('e2', 64)}\n`]);
    const sent = await client.createNotification(Object.assign(new OneSignal.Notification(), { app_id: app.app.id, include_subscription_ids: [good, broken], contents: { en: 'x' } }));
    expect((await waitFinal(env.pool, Number(sent.id))).final).to.include({ status: 'approved', sent: 1, failed: 1 });
    expect(await subscribed([broken])).to.deep.equal([{ id: broken, subscribed: true, unsubscribed_reason: null }]);

    expect((await setUpdate(good, 'bent-ride', hexToken('e3', 128))).status).to.equal(200);
    expect((await setUpdate(broken, 'bent-ride', hexToken('e4', 128))).status).to.equal(200);
    const bent = `${hexToken('e4', 127)} `;
    await env.pool.query(`UPDATE live_activity_tokens SET token = $2 WHERE subscription_id = $1 AND activity = 'bent-ride'`, [broken, bent]);
    const update = await client.updateLiveActivity(app.app.id, 'bent-ride', Object.assign(new OneSignal.UpdateLiveActivityRequest(), { name: 'eta', event: 'update', event_updates: { eta: 2 } }));
    expect((await waitFinal(env.pool, Number(update.id))).final).to.include({ status: 'approved', sent: 1, failed: 1 });
    receivedOnce(hexToken('e3', 128));
    const kept = await env.pool.query(`SELECT token FROM live_activity_tokens WHERE subscription_id = $1 AND activity = 'bent-ride'`, [broken]);
    expect(kept.rows).to.deep.equal([{ token: bent }]);
    expect(await subscribed([broken])).to.deep.equal([{ id: broken, subscribed: true, unsubscribed_reason: null }]);

    const counted = (await stack.sender.metrics.deliveries.get()).values.filter((v) => v.labels.reason === 'Unframeable');
    expect(counted.map((v) => [v.labels.outcome, v.value])).to.deep.equal([['failed', 2]]);
    expect(sim.deliveries().map((d) => d.token).sort()).to.deep.equal([hexToken('e1', 64), hexToken('e3', 128)].sort());
  });
});
