// isIos / isAndroid and the Android fields of a send (issue 39 points 3 and 4) through the
// official client @onesignal/node-onesignal 5.18.0, against the real api and PostgreSQL: an app
// with iOS and Android installs, a send narrowed to one platform counts (the estimate call, the
// send's estimate and total_recipients) and plans (its chunks, each chunk's devices) only that
// platform's installs, exactly; neither flag: both platforms. The Android fields the client sends
// are kept in the stored request (they were dropped before), and both flags false is a 422.
import { expect } from 'chai';
import * as OneSignal from '@onesignal/node-onesignal';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { officialClient, refused } from '../support/onesignal.js';
import { addDevices, makeApp, type TestApp } from '../support/apps.js';
import { planSend } from '../../core/delivery/planner.js';
import { loadChunkDevices } from '../../core/delivery/chunks.js';
import { getApp } from '../../core/apps/app-store.js';
import { NO_PLATFORM } from '../../core/validation/android-options.js';
import { timezoneChunks } from '../../core/delivery/timezone.js';

describe('api: isIos / isAndroid narrow a send to one platform, counted and planned exactly', () => {
  const env = useTestEnv();
  const api = useTestApi(env);
  let app: TestApp;
  let client: OneSignal.DefaultApi;
  let n = 0;
  const fcm = () => `cPl4tf0rm:APA91b-${++n}_` + 'Xy'.repeat(70);

  // 5 iOS (3 gold) + 4 Android (2 gold), and one of each unsubscribed (never counted).
  const IOS = { all: 5, gold: 3 };
  const ANDROID = { all: 4, gold: 2 };

  before(async () => {
    app = await makeApp(env.pool, { segments: [{ name: 'Gold', conditions: [{ key: 'plan', relation: '=', value: 'gold' }] }] });
    client = officialClient(api.url, app.key);
    await addDevices(env.pool, app.app.id, [
      ...Array.from({ length: IOS.all }, (_, i) => ({ tags: { plan: i < IOS.gold ? 'gold' : 'free' } })),
      { tags: { plan: 'gold' }, subscribed: false },
    ]);
    for (let i = 0; i < ANDROID.all + 1; i++) {
      const res = await api.request('POST', `/api/v1/apps/${app.app.id}/subscriptions`, {
        body: { type: 'AndroidPush', token: fcm(), tags: { plan: i < ANDROID.gold || i === ANDROID.all ? 'gold' : 'free' }, subscribed: i < ANDROID.all },
      });
      expect(res.status).to.equal(201);
    }
  });

  const estimateCall = async (fields: Record<string, unknown>) => {
    const res = await api.request('POST', '/api/v1/notifications/count-unsaved', { key: app.key, body: { app_id: app.app.id, ...fields } });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.count as number;
  };

  /** The send's estimate, total_recipients, planned devices and the platforms of the devices its chunks load. */
  /** The client's model names the flags is_ios / is_android and sends them as isIos / isAndroid. */
  const model = (fields: Record<string, unknown>) => {
    const { isIos, isAndroid, ...rest } = fields;
    return Object.assign(new OneSignal.Notification(), { app_id: app.app.id, contents: { en: 'x' }, ...rest, ...(isIos !== undefined ? { is_ios: isIos } : {}), ...(isAndroid !== undefined ? { is_android: isAndroid } : {}) });
  };
  const sendAndPlan = async (fields: Record<string, unknown>) => {
    const notification = model(fields);
    const { id } = await client.createNotification(notification);
    const row = (await env.pool.query('SELECT id, total_recipients, request FROM sends WHERE app_id = $1 AND id = (SELECT max(id) FROM sends WHERE app_id = $1)', [app.app.id])).rows[0];
    expect(String(row.id)).to.equal(String(id));
    await planSend({ pool: env.pool }, row.id);
    const chunks = (await env.pool.query('SELECT from_seq, to_seq, planned FROM send_chunks WHERE send_id = $1 ORDER BY chunk', [row.id])).rows;
    const record = (await getApp(env.pool, app.app.id))!;
    const platforms: string[] = [];
    for (const c of chunks) {
      const { devices } = await loadChunkDevices(env.pool, record, row.request, { fromSeq: Number(c.from_seq), toSeq: Number(c.to_seq), planned: c.planned });
      const res = await env.pool.query('SELECT platform FROM subscriptions WHERE id = ANY($1::uuid[])', [devices.map((d) => d.subscriptionId)]);
      platforms.push(...res.rows.map((r) => r.platform as string));
    }
    return { total: row.total_recipients as number, planned: chunks.reduce((sum, c) => sum + c.planned, 0), platforms: [...new Set(platforms)].sort(), request: row.request };
  };

  const cases: Array<[string, Record<string, unknown>, number, number, string[]]> = [
    ['neither flag: both platforms', {}, IOS.all + ANDROID.all, IOS.gold + ANDROID.gold, ['android', 'ios']],
    ['isAndroid: false: iOS only', { isAndroid: false }, IOS.all, IOS.gold, ['ios']],
    ['isIos: false: Android only', { isIos: false }, ANDROID.all, ANDROID.gold, ['android']],
    ['both true: both platforms', { isIos: true, isAndroid: true }, IOS.all + ANDROID.all, IOS.gold + ANDROID.gold, ['android', 'ios']],
  ];
  for (const [what, flags, all, gold, platforms] of cases) {
    it(`${what}: the estimate, total_recipients and the plan count ${all} (a segment) and ${gold} (filters)`, async () => {
      expect(await estimateCall({ included_segments: ['Subscribed Users'], ...flags })).to.equal(all);
      expect(await estimateCall({ filters: [{ field: 'tag', key: 'plan', relation: '=', value: 'gold' }], ...flags })).to.equal(gold);
      const everyone = await sendAndPlan({ included_segments: ['Subscribed Users'], ...flags });
      expect([everyone.total, everyone.planned, everyone.platforms]).to.deep.equal([all, all, platforms]);
      const golden = await sendAndPlan({ included_segments: ['Gold'], ...flags });
      expect([golden.total, golden.planned, golden.platforms]).to.deep.equal([gold, gold, platforms]);
    });
  }

  it('a narrowed list send counts the ids given (the contract) and delivers to that platform only', async () => {
    const ids = (await env.pool.query<{ id: string; platform: string }>(
      `SELECT DISTINCT ON (platform) id::text, platform FROM subscriptions WHERE app_id = $1 AND subscribed ORDER BY platform, seq`, [app.app.id])).rows;
    const { id } = await client.createNotification(model({ include_subscription_ids: ids.map((r) => r.id), isIos: false }));
    const row = (await env.pool.query('SELECT total_recipients, request FROM sends WHERE id = $1', [id])).rows[0];
    expect(row.total_recipients).to.equal(2);
    const record = (await getApp(env.pool, app.app.id))!;
    const { devices } = await loadChunkDevices(env.pool, record, row.request, { fromSeq: null, toSeq: null, planned: 2 });
    expect(devices.map((d) => d.subscriptionId)).to.deep.equal(ids.filter((r) => r.platform === 'android').map((r) => r.id));
  });

  it('a per-time-zone send narrowed to one platform plans only its installs', async () => {
    const record = (await getApp(env.pool, app.app.id))!;
    const maxSeq = Number((await env.pool.query('SELECT max(seq) AS m FROM subscriptions WHERE app_id = $1', [app.app.id])).rows[0].m);
    for (const [flags, expected] of [[{ isIos: false }, ANDROID.all], [{ isAndroid: false }, IOS.all], [{}, IOS.all + ANDROID.all]] as const) {
      const res = await api.request('POST', '/api/v1/notifications', {
        key: app.key,
        body: { app_id: app.app.id, contents: { en: 'x' }, included_segments: ['Subscribed Users'], delayed_option: 'timezone', delivery_time_of_day: '9:00AM', ...flags },
      });
      expect([res.status, res.body.estimate]).to.deep.equal([200, expected]);
      const req = (await env.pool.query('SELECT request FROM sends WHERE id = $1', [res.body.id])).rows[0].request;
      // A cap above every install, so only the narrowing can hold the plan to the platform.
      const chunks = await timezoneChunks(env.pool, record, req, { maxSeq, cap: 1000, from: new Date() });
      expect(chunks.reduce((sum, c) => sum + c.planned, 0), JSON.stringify(flags)).to.equal(expected);
    }
  });

  it('every audience reaches both platforms: aliases, external ids, tags, excluded segments; a flag narrows each', async () => {
    await client.createUser(app.app.id, Object.assign(new OneSignal.User(), {
      identity: { external_id: 'both-7f3', crm: 'crm-both' },
      properties: { tags: { plan: 'mixed' } },
      subscriptions: [{ type: 'iOSPush', token: 'b0'.repeat(32) }, { type: 'AndroidPush', token: fcm() }],
    }));
    const record = (await getApp(env.pool, app.app.id))!;
    /** The platforms of the devices a send's first chunk loads (list sends: one chunk of the ids). */
    const reached = async (fields: Record<string, unknown>) => {
      const { id } = await client.createNotification(model(fields)).catch((e) => { throw new Error(`${JSON.stringify(fields)}: ${JSON.stringify(e.body)}`); });
      const row = (await env.pool.query('SELECT request, audience_max_seq FROM sends WHERE id = $1', [id])).rows[0];
      const list = row.request.target.kind !== 'segment' && row.request.target.kind !== 'filters' && row.request.target.kind !== 'tag';
      const bounds = list ? { fromSeq: null, toSeq: null, planned: 1 } : { fromSeq: 0, toSeq: Number(row.audience_max_seq), planned: 1000 };
      const { devices } = await loadChunkDevices(env.pool, record, row.request, bounds);
      const res = await env.pool.query('SELECT DISTINCT platform FROM subscriptions WHERE id = ANY($1::uuid[]) ORDER BY 1', [devices.map((d) => d.subscriptionId)]);
      return res.rows.map((r) => r.platform as string);
    };
    const audiences: Array<Record<string, unknown>> = [
      { include_aliases: { crm: ['crm-both'] } },
      // The client names external ids as an alias (Herald's external_ids target).
      { include_aliases: { external_id: ['both-7f3'] } },
      { filters: [{ field: 'tag', key: 'plan', relation: '=', value: 'mixed' }] },
      { included_segments: ['Subscribed Users'], excluded_segments: ['Gold'] },
    ];
    for (const audience of audiences) {
      expect(await reached(audience), JSON.stringify(audience)).to.deep.equal(['android', 'ios']);
      expect(await reached({ ...audience, isIos: false }), JSON.stringify(audience)).to.deep.equal(['android']);
      expect(await reached({ ...audience, isAndroid: false }), JSON.stringify(audience)).to.deep.equal(['ios']);
    }
  });

  it('both false is a 422 with a clear sentence, for the send and the estimate', async () => {
    const r = await refused(client.createNotification(model({ included_segments: ['Subscribed Users'], isIos: false, isAndroid: false })));
    expect([r.code, r.body.errors]).to.deep.equal([422, [NO_PLATFORM]]);
    const e = await api.request('POST', '/api/v1/notifications/count-unsaved', { key: app.key, body: { app_id: app.app.id, included_segments: ['Subscribed Users'], isIos: false, isAndroid: false } });
    expect([e.status, e.body.errors]).to.deep.equal([422, [NO_PLATFORM]]);
  });

  it("keeps the client's Android fields in the send (they were dropped before), and refuses a bad colour by name", async () => {
    const { request } = await sendAndPlan({
      included_segments: ['Gold'],
      existing_android_channel_id: 'promo',
      small_icon: 'ic_stat_bell',
      android_accent_color: 'FF0099CC',
      android_sound: 'chime',
      android_group: 'inbox',
      big_picture: 'https://x.example/i.png',
      isIos: false,
    });
    expect(request.android).to.deep.equal({ channelId: 'promo', smallIcon: 'ic_stat_bell', accentColor: 'FF0099CC', sound: 'chime', group: 'inbox' });
    expect(request).to.deep.include({ imageUrl: 'https://x.example/i.png', platforms: ['android'] });
    const r = await refused(client.createNotification(Object.assign(new OneSignal.Notification(), { app_id: app.app.id, contents: { en: 'x' }, included_segments: ['Gold'], android_accent_color: '#0099CC' })));
    expect([r.code, r.body.errors]).to.deep.equal([422, ['android_accent_color must be 8 hex digits, alpha then red, green and blue (AARRGGBB), such as FF0099CC.']]);
  });
});
