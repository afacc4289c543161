// deleteUser erases a user for good (issue 27, docs/security.md "Data map"): after the official
// client's call, no column of any table of the database — the list read from information_schema,
// so a table added later is searched too — holds the user's OneSignal id, aliases, install ids,
// device tokens or Live Activity tokens; another user's data, searched the same way, is all there.
import { expect } from 'chai';
import * as OneSignal from '@onesignal/node-onesignal';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { officialClient } from '../support/onesignal.js';
import { makeApp, type TestApp } from '../support/apps.js';
import type { Pool } from '../../core/store/db.js';
import { recordChunkEvents } from '../../core/events/record.js';
import { recordChunk } from '../../core/delivery/chunks.js';
import { eventCount, expandRecord, type RecordRow } from '../../core/events/expand.js';
import { importSubscriptions } from '../../core/users/import-installs.js';
import { Readable } from 'node:stream';
import { NotFoundError } from '../../core/errors.js';
import { NO_SUCH_USER, readUser } from '../../core/users/user-store.js';

/** Every (table, column) of the public schema whose values can hold text, with how many rows of each contain one of `needles`. */
async function findAnywhere(pool: Pool, needles: string[]): Promise<string[]> {
  const columns = await pool.query<{ table_name: string; column_name: string }>(
    `SELECT c.table_name, c.column_name FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
      WHERE c.table_schema = 'public' AND c.data_type NOT IN ('integer', 'bigint', 'smallint', 'boolean', 'numeric', 'double precision', 'real')
      ORDER BY 1, 2`,
  );
  expect(columns.rows.map((c) => c.table_name)).to.include.members(['subscriptions', 'users', 'user_aliases', 'opens', 'sends', 'send_chunks', 'live_activity_tokens', 'idempotency_keys', 'outbox', 'event_records']);
  const patterns = needles.map((n) => `%${n.replace(/[\\%_]/g, '\\$&')}%`);
  const found: string[] = [];
  for (const { table_name: table, column_name: column } of columns.rows) {
    const res = await pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM "${table}" WHERE lower("${column}"::text) LIKE ANY($1::text[])`,
      [patterns.map((p) => p.toLowerCase())],
    );
    if (Number(res.rows[0].n) > 0) found.push(`${table}.${column}: ${res.rows[0].n}`);
  }
  return found;
}

describe('api: deleteUser erases everything of the user', () => {
  const env = useTestEnv();
  const api = useTestApi(env);
  let app: TestApp;
  let client: OneSignal.DefaultApi;

  before(async () => {
    app = await makeApp(env.pool);
    client = officialClient(api.url, app.key);
    // An event destination (issue 28): the senders record each chunk's device outcomes by install.
    await env.pool.query(`INSERT INTO event_destinations (app_id, name, url, secret) VALUES ($1, 'test', 'http://127.0.0.1:1/', '\\x00')`, [app.app.id]);
  });

  /** A user with 3 installs (one unsubscribed), aliases, tags, Live Activity tokens, opens, and ids in list sends. */
  async function makeUserWithTraces(name: string, prefix: string) {
    const tokens = [1, 2, 3].map((i) => `${prefix}${i}`.padEnd(64, '0'));
    const user = await client.createUser(app.app.id, Object.assign(new OneSignal.User(), {
      identity: { external_id: `${name}-ext-7f3`, crm: `${name}-crm-7f3` },
      properties: { tags: { plan: `${name}-plan` }, timezone_id: 'Europe/Paris' },
      subscriptions: tokens.map((token, i) => ({ type: 'iOSPush' as const, token, enabled: i < 2 })),
    }));
    const installs = user.subscriptions!.map((s) => s.id!);
    const laTokens = [`${prefix}a`.padEnd(64, 'a'), `${prefix}b`.padEnd(64, 'b')];
    const sdk = (method: string, path: string, body: unknown) => api.request(method, `/api/v1/apps/${app.app.id}${path}`, { body });
    expect((await sdk('POST', `/live_activities/${name}-match/token`, { subscription_id: installs[0], push_token: laTokens[0] })).status).to.equal(200);
    expect((await sdk('PUT', `/activities/tokens/start/Score/subscriptions/${installs[1]}`, { activity_token: laTokens[1] })).status).to.equal(200);
    // A VoIP token (issue 29): the install's deletion takes it too.
    const voipToken = `${prefix}c`.padEnd(64, 'c');
    expect((await sdk('PUT', `/subscriptions/${installs[0]}/push_tokens/voip`, { push_token: voipToken })).status).to.equal(200);
    const send = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      api.request('POST', '/api/v1/notifications', { key: app.key, headers, body: { app_id: app.app.id, contents: { en: 'x' }, ...body } });
    // A list send naming an install in upper case, and an idempotent one whose kept answer lists
    // the unsubscribed install as unknown.
    const byId = await send({ include_subscription_ids: [installs[0].toUpperCase(), installs[1]] });
    const kept = await send({ include_subscription_ids: [installs[2]] }, { 'Idempotency-Key': `${name}-key` });
    expect(kept.body.errors.invalid_player_ids).to.deep.equal([installs[2]]);
    await send({ include_external_user_ids: [`${name}-ext-7f3`] });
    const open = await api.request('POST', `/api/v1/notifications/${byId.body.id}/opened`, { body: { app_id: app.app.id, subscription_id: installs[1] } });
    expect(open.status).to.equal(200);
    // A Live Activity update: its chunk names the install holding the update token.
    const update = await api.request('POST', `/api/v1/apps/${app.app.id}/live_activities/${name}-match/notifications`, { key: app.key, body: { event: 'update', event_updates: { score: '1-0' } } });
    expect(update.status).to.equal(200);
    // The chunk record a sender writes for the list send: one install sent, one failed, one refused for good.
    await recordChunkEvents(env.pool, app.app.id, Number(byId.body.id), 0, {
      sent: [installs[0]], failed: [{ subscriptionId: installs[1], reason: 'BadDeviceToken' }], unsubscribed: [{ subscriptionId: installs[2], reason: 'Unregistered', appleTimestampMs: 1 }],
    });
    return { id: user.identity!.onesignal_id!, needles: [user.identity!.onesignal_id!, `${name}-ext-7f3`, `${name}-crm-7f3`, ...installs, ...tokens, ...laTokens, voipToken] };
  }

  it('leaves no id, alias or token of the user in any table, and every one of another user', async () => {
    const zoe = await makeUserWithTraces('zoe', 'c0ffee');
    const yan = await makeUserWithTraces('yan', 'beef00');
    const before = await findAnywhere(env.pool, zoe.needles);
    for (const place of ['users.id', 'user_aliases.alias_id', 'subscriptions.token', 'opens.subscription_id', 'sends.request', 'send_chunks.entries', 'live_activity_tokens.token', 'push_type_tokens.token', 'idempotency_keys.response', 'event_records.body']) {
      expect(before.some((f) => f.startsWith(`${place}:`)), `before: ${place} in ${before.join(', ')}`).to.equal(true);
    }

    await client.deleteUser(app.app.id, 'crm', 'zoe-crm-7f3');

    expect(await findAnywhere(env.pool, zoe.needles)).to.deep.equal([]);
    const yanLeft = await findAnywhere(env.pool, yan.needles);
    for (const place of ['users.id', 'subscriptions.token', 'opens.subscription_id', 'sends.request', 'send_chunks.entries', 'live_activity_tokens.token', 'push_type_tokens.token', 'idempotency_keys.response', 'event_records.body']) {
      expect(yanLeft.some((f) => f.startsWith(`${place}:`)), `yan's ${place}`).to.equal(true);
    }
    // The chunk records keep their events' count and ids (a destination's place inside one holds):
    // zoe's events without a subscription, yan's with theirs.
    const records = await env.pool.query<RecordRow>(`SELECT id::int, app_id AS "appId", send_id::int AS "sendId", kind, body, recorded_at AS "recordedAt" FROM event_records WHERE app_id = $1 AND kind = 'chunk' ORDER BY id`, [app.app.id]);
    expect(records.rows.map((r) => eventCount(r))).to.deep.equal([4, 4]);
    const [zoeEvents, yanEvents] = records.rows.map((r) => expandRecord(r, new Map()));
    expect(zoeEvents.map((e) => e.subscription)).to.deep.equal([undefined, undefined, undefined, undefined]);
    expect(yanEvents.every((e) => e.subscription !== undefined)).to.equal(true);
    const yanUser = await client.getUser(app.app.id, 'onesignal_id', yan.id);
    expect(yanUser.subscriptions).to.have.length(3);
    for (const label of ['onesignal_id', 'external_id']) {
      const value = label === 'onesignal_id' ? zoe.id : 'zoe-ext-7f3';
      const gone = await client.getUser(app.app.id, label, value).then(() => 200, (e: OneSignal.ApiException<unknown>) => e.code);
      expect(gone, label).to.equal(404);
    }
  });

  it('a user erased after a page or call found it is a 404 when its view is read, never a crash', async () => {
    const user = await client.createUser(app.app.id, Object.assign(new OneSignal.User(), { identity: { external_id: 'gone-7f3' } }));
    const id = user.identity!.onesignal_id!;
    expect((await readUser(env.pool, id)).identity).to.include({ external_id: 'gone-7f3' });
    await client.deleteUser(app.app.id, 'external_id', 'gone-7f3');
    const error = await readUser(env.pool, id).then(() => undefined, (e: unknown) => e);
    expect(error).to.be.instanceOf(NotFoundError);
    expect(error).to.include({ status: 404, message: NO_SUCH_USER });
  });

  it('deleteSubscription takes the install out of the event records too, keeping their places', async () => {
    const made = await client.createUser(app.app.id, Object.assign(new OneSignal.User(), {
      identity: { external_id: 'one-install' },
      subscriptions: ['f1', 'f2'].map((p) => ({ type: 'iOSPush' as const, token: p.repeat(32) })),
    }));
    const [gone, kept] = made.subscriptions!.map((s) => s.id!);
    await recordChunkEvents(env.pool, app.app.id, 999_999, 0, { sent: [kept, gone], failed: [{ subscriptionId: gone, reason: 'BadDeviceToken' }], unsubscribed: [] });
    await client.deleteSubscription(app.app.id, gone);
    expect(await findAnywhere(env.pool, [gone])).to.deep.equal([]);
    const body = await env.pool.query("SELECT body FROM event_records WHERE app_id = $1 AND kind = 'chunk' AND send_id = 999999", [app.app.id]);
    expect(body.rows[0].body).to.deep.equal({ chunk: 0, s: [kept, null], f: [[null, 'BadDeviceToken']], u: [] });
  });

  it('erases an imported install carrying the user\'s external id with no user row, and its id wherever it is', async () => {
    await client.createUser(app.app.id, Object.assign(new OneSignal.User(), { identity: { external_id: 'imp-ext', crm: 'imp-crm' } }));
    // herald import writes installs by token: this one carries the external id but joins no user row.
    const token = '1f'.repeat(32);
    await importSubscriptions(env.pool, app.app.id, Readable.from([`${JSON.stringify({ token, external_id: 'imp-ext' })}\n`]));
    const install = (await env.pool.query<{ id: string }>('SELECT id FROM subscriptions WHERE app_id = $1 AND token = $2', [app.app.id, token])).rows[0].id;
    const send = await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, include_subscription_ids: [install] } });
    expect(send.status).to.equal(200);
    await recordChunkEvents(env.pool, app.app.id, Number(send.body.id), 0, { sent: [install], failed: [], unsubscribed: [] });
    expect(await findAnywhere(env.pool, [install])).to.not.deep.equal([]);
    await client.deleteUser(app.app.id, 'crm', 'imp-crm');
    expect(await findAnywhere(env.pool, [install, token, 'imp-ext'])).to.deep.equal([]);
  });

  it('erases an Android install (issue 39) as an iOS one: its FCM token and id are nowhere after', async () => {
    const fcmToken = 'eRaSe:APA91b_Droid-7f3.' + 'Qz'.repeat(60);
    const made = await client.createUser(app.app.id, Object.assign(new OneSignal.User(), {
      identity: { external_id: 'droid-7f3' },
      subscriptions: [{ type: 'AndroidPush' as const, token: fcmToken }, { type: 'iOSPush' as const, token: 'd7'.repeat(32) }],
    }));
    const [android, ios] = made.subscriptions!.map((s) => s.id!);
    const send = await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, include_subscription_ids: [android, ios] } });
    expect(send.status).to.equal(200);
    await recordChunkEvents(env.pool, app.app.id, Number(send.body.id), 0, { sent: [android, ios], failed: [], unsubscribed: [] });
    const needles = [android, ios, fcmToken, 'droid-7f3'];
    expect(await findAnywhere(env.pool, needles)).to.include.members([`subscriptions.token: 1`]);
    await client.deleteUser(app.app.id, 'external_id', 'droid-7f3');
    expect(await findAnywhere(env.pool, needles)).to.deep.equal([]);
  });

  it('a chunk that loaded an install before its erasure records its outcome without the install', async () => {
    const made = await client.createUser(app.app.id, Object.assign(new OneSignal.User(), {
      identity: { external_id: 'mid-send' },
      subscriptions: ['2a', '2b'].map((p) => ({ type: 'iOSPush' as const, token: p.repeat(32) })),
    }));
    const [gone, kept] = made.subscriptions!.map((s) => s.id!);
    await client.deleteSubscription(app.app.id, gone);
    // The sender pushed to both while the erasure ran, and records the chunk after it.
    await recordChunkEvents(env.pool, app.app.id, 888_888, 0, { sent: [gone, kept], failed: [], unsubscribed: [{ subscriptionId: gone, reason: 'Unregistered', appleTimestampMs: 2 }] });
    const body = await env.pool.query("SELECT body FROM event_records WHERE app_id = $1 AND kind = 'chunk' AND send_id = 888888", [app.app.id]);
    expect(body.rows[0].body).to.deep.equal({ chunk: 0, s: [null, kept], f: [], u: [[null, 'Unregistered', 2]] });
  });

  it("a chunk recorded the sender's way (its sent installs by seq from the chunk's row) after an erasure records its outcome without the install", async () => {
    const made = await client.createUser(app.app.id, Object.assign(new OneSignal.User(), {
      identity: { external_id: 'mid-send-seq' },
      subscriptions: ['3a', '3b'].map((p) => ({ type: 'iOSPush' as const, token: p.repeat(32) })),
    }));
    const [gone, kept] = made.subscriptions!.map((s) => s.id!);
    const seqs = (await env.pool.query('SELECT id::text, seq::text FROM subscriptions WHERE id = ANY($1::uuid[])', [[gone, kept]])).rows;
    const seqOf = (id: string) => seqs.find((r) => r.id === id)!.seq as string;
    const send = await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, include_subscription_ids: [gone, kept] } });
    expect(send.status).to.equal(200);
    await client.deleteSubscription(app.app.id, gone);
    // The sender pushed to both while the erasure ran, and records the chunk after it.
    const recorded = await recordChunk(env.pool, {
      appId: app.app.id, sendId: Number(send.body.id), chunk: 0,
      outcome: {
        sent: 2, failed: 0, skipped: 0, leftOut: 0, unsubscribe: [], sentTo: [gone, kept], failedFor: [],
        history: { sent: [seqOf(gone), seqOf(kept)], failed: [], reasons: [], unsubscribed: [] },
      },
    });
    expect(recorded.counted).to.equal(true);
    const body = await env.pool.query("SELECT body FROM event_records WHERE app_id = $1 AND kind = 'chunk' AND send_id = $2", [app.app.id, send.body.id]);
    expect(body.rows.map((r) => r.body)).to.deep.equal([{ chunk: 0, s: [null, kept], f: [], u: [] }]);
  });

  it('answers what it erased, and a second delete finds no one', async () => {
    const made = await client.createUser(app.app.id, Object.assign(new OneSignal.User(), {
      identity: { external_id: 'once' },
      subscriptions: [{ type: 'iOSPush' as const, token: 'd1'.repeat(32) }],
    }));
    const res = await api.request('DELETE', `/api/v1/apps/${app.app.id}/users/by/onesignal_id/${made.identity!.onesignal_id}`, { key: app.key });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ success: true, erased: { installs: 1, aliases: 1, live_activity_tokens: 0, push_type_tokens: 0, opens: 0, sends_scrubbed: 0 } });
    const again = await api.request('DELETE', `/api/v1/apps/${app.app.id}/users/by/external_id/once`, { key: app.key });
    expect(again.status).to.equal(404);
  });

  it('erases installs the app registered with the external id, made a user on the way', async () => {
    const register = (token: string) => api.request('POST', `/api/v1/apps/${app.app.id}/subscriptions`, { body: { token, external_id: 'late' } });
    await register('e1'.repeat(32));
    await register('e2'.repeat(32));
    await client.deleteUser(app.app.id, 'external_id', 'late');
    const left = await env.pool.query("SELECT count(*)::int AS n FROM subscriptions WHERE external_id = 'late' OR token IN ($1, $2)", ['e1'.repeat(32), 'e2'.repeat(32)]);
    expect(left.rows[0].n).to.equal(0);
  });
});
