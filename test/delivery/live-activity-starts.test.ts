// Starting a Live Activity by push end to end: installs register a push-to-start token per
// activity type as OneSignal's iOS SDK does; the official client's startLiveActivity (only its
// base server changed) names an audience as sends do; the push goes to the push-to-start tokens
// of the installs in it that hold one for that type, through the engine and transport of every
// send, and the simulator reads exactly Apple's headers and `aps` keys.
import { expect } from 'chai';
import * as OneSignal from '@onesignal/node-onesignal';
import { useTestEnv } from '../env/index.js';
import type { ApnsSim } from '../../apns-sim/index.js';
import { LIVE_ACTIVITY_APS_KEYS } from '../../apns-sim/apple-rules.js';
import type { TestApi } from '../support/api-server.js';
import { startDeliveryStack, token, waitFinal, type DeliveryStack, type TestApp } from './fixtures.js';

describe('delivery: Live Activity starts (push-to-start) through the official client', function () {
  this.timeout(120_000);
  const env = useTestEnv();
  let stack: DeliveryStack;
  let sim: ApnsSim;
  let api: TestApi;
  let app: TestApp;
  let key: string;
  let client: OneSignal.DefaultApi;
  const installs: Record<string, { id: string; startToken?: string; deviceToken: string }> = {};

  /** An install registered as the SDK does; with `type`, its push-to-start token for that type. */
  async function install(name: string, fields: Record<string, unknown>, type?: string) {
    const deviceToken = token(`d${name}`, 1);
    const created = await api.request('POST', `/api/v1/apps/${app.app.id}/subscriptions`, { body: { token: deviceToken, ...fields } });
    expect(created.status).to.equal(201);
    const entry: (typeof installs)[string] = { id: created.body.id, deviceToken };
    if (type) {
      entry.startToken = token(`5${name}`, 1);
      const set = await api.request('PUT', `/api/v1/apps/${app.app.id}/activities/tokens/start/${type}/subscriptions/${created.body.id}`, {
        body: { activity_token: entry.startToken, device_type: 0 },
      });
      expect(set.status).to.equal(200);
    }
    installs[name] = entry;
  }

  before(async () => {
    stack = await startDeliveryStack(env, 'lastarts');
    ({ sim, api, app, key, client } = stack);
    await install('a1', { language: 'en', external_id: 'fan-1', tags: { team: 'A' } }, 'MatchAttributes');
    await install('a2', { language: 'de', external_id: 'fan-2', tags: { team: 'B' } }, 'MatchAttributes');
    await install('a3', { external_id: 'fan-3', tags: { team: 'A' } }, 'RideAttributes'); // another type
    await install('a4', { external_id: 'fan-4', tags: { team: 'A' } }); // no push-to-start token
  });
  after(() => stack?.close());
  beforeEach(() => sim.reset());

  const start = (fields: Partial<OneSignal.StartLiveActivityRequest>) =>
    client.startLiveActivity(
      app.app.id,
      'MatchAttributes',
      Object.assign(new OneSignal.StartLiveActivityRequest(), {
        name: 'kick-off',
        event: 'start',
        activity_id: 'match-7',
        event_attributes: { home: 'A', away: 'B' },
        event_updates: { home: 0, away: 0 },
        contents: { en: 'Kick-off', de: 'Anpfiff' },
        headings: { en: 'A v B' },
        ...fields,
      }),
    );

  function received(startToken: string) {
    const got = sim.deliveries(startToken);
    expect(got, 'one push to the push-to-start token').to.have.length(1);
    expect(got[0].status).to.equal(200);
    const payload = JSON.parse(got[0].payload) as { aps: Record<string, unknown> };
    expect(Object.keys(payload)).to.deep.equal(['aps']);
    expect(Object.keys(payload.aps).filter((k) => !LIVE_ACTIVITY_APS_KEYS.has(k))).to.deep.equal([]);
    const { 'apns-expiration': _expiration, ...headers } = got[0].headers;
    return { aps: payload.aps, headers };
  }

  it("a segment: the push-to-start tokens of that type only, with Apple's start keys", async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await start({ included_segments: ['Subscribed Users'], stale_date: before + 7200, ios_relevance_score: 1 });
    expect(res).to.be.instanceOf(OneSignal.StartLiveActivitySuccessResponse);
    const { final } = await waitFinal(env.pool, Number(res.notification_id));
    // Only the installs holding a MatchAttributes push-to-start token are in the audience.
    expect(final).to.include({ total_recipients: 2, sent: 2, failed: 0, status: 'approved' });
    const got = received(installs.a1.startToken!);
    expect(got.headers).to.deep.equal({ 'apns-topic': 'com.example.lastarts.push-type.liveactivity', 'apns-push-type': 'liveactivity', 'apns-priority': '10' });
    const { timestamp, ...aps } = got.aps;
    expect(timestamp).to.be.a('number').at.least(before);
    expect(aps).to.deep.equal({
      event: 'start',
      'content-state': { home: 0, away: 0 },
      'attributes-type': 'MatchAttributes',
      // OneSignal's iOS SDK registers the started activity's update token under this id.
      attributes: { home: 'A', away: 'B', onesignal: { activityId: 'match-7' } },
      'stale-date': before + 7200,
      'relevance-score': 1,
      alert: { title: 'A v B', body: 'Kick-off' },
    });
    expect(received(installs.a2.startToken!).aps.alert).to.deep.equal({ title: 'A v B', body: 'Anpfiff' });
    for (const other of [installs.a3.startToken!, installs.a1.deviceToken, installs.a4.deviceToken]) expect(sim.deliveries(other)).to.deep.equal([]);
  });

  it('filters: the tag condition and the token of the type together', async () => {
    const res = await start({ filters: [{ field: 'tag', key: 'team', relation: '=', value: 'A' }] });
    const { final } = await waitFinal(env.pool, Number(res.notification_id));
    expect(final).to.include({ total_recipients: 1, sent: 1 });
    received(installs.a1.startToken!);
  });

  it('include_aliases: an external id without a push-to-start token of the type is skipped', async () => {
    const res = await start({ include_aliases: { external_id: ['fan-2', 'fan-3', 'fan-4'] }, priority: 5 });
    const { final } = await waitFinal(env.pool, Number(res.notification_id));
    expect(final).to.include({ total_recipients: 3, sent: 1, skipped: 2, status: 'approved' });
    expect(received(installs.a2.startToken!).headers['apns-priority']).to.equal('5');
  });

  it('include_subscription_ids, and the send reads as kind live_activity with its event and type', async () => {
    const res = await start({ include_subscription_ids: [installs.a1.id], activity_id: 'match-8' });
    const { final } = await waitFinal(env.pool, Number(res.notification_id));
    expect(final).to.include({ sent: 1 });
    expect(received(installs.a1.startToken!).aps.attributes).to.deep.equal({ home: 'A', away: 'B', onesignal: { activityId: 'match-8' } });
    const stats = await api.request('GET', `/api/v1/notifications/${res.notification_id}`, { key });
    expect(stats.body.live_activity).to.deep.equal({ event: 'start', activity_id: 'match-8', activity_type: 'MatchAttributes' });
    const row = await env.pool.query('SELECT kind, target_kind FROM sends WHERE id = $1', [Number(res.notification_id)]);
    expect(row.rows[0]).to.deep.equal({ kind: 'live_activity', target_kind: 'subscription_ids' });
  });
});
