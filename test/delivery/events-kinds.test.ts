// The event kinds beyond a chunk's outcomes (issue 28 point 1, docs/events.md), through the real
// flows to a real receiver that verifies every request with the `standardwebhooks` library: an
// open reported by the app (the SDK's call) as message.push.clicked, once; a 410 that unsubscribed
// nobody (registered since) as message.push.failed only; a send paused by an
// overdue invoice (the running sender's scheduler sweeps it) or kept from firing by one as
// notification.paused then notification.finished; Live Activity tokens the simulator refuses as
// live_activity.token.removed with Apple's reason and timestamp; an end push and the app's
// removals as live_activity.ended and live_activity.token.removed; and Live Activity pushes give
// no message.push.* events.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import * as OneSignal from '@onesignal/node-onesignal';
import { useTestEnv } from '../env/index.js';
import { setInvoiceOverdue } from '../../core/apps/app-store.js';
import { checkEventsSpec } from '../../core/events/destinations.js';
import type { HeraldEvent } from '../../core/events/expand.js';
import { EVENT_KINDS, type EventKind } from '../../core/events/kinds.js';
import { UUID_PATTERN } from '../../core/formats/uuid.js';
import { waitFor } from '../support/wait.js';
import { addDevices, createTestApp, send, startDeliveryStack, token, waitFinal, type DeliveryStack } from './fixtures.js';
import { addDestination, eventsOf, startReceiver, whsec, type Receiver } from './event-receiver.js';
import { removeTokenForApp } from '../../core/live-activities/token-events.js';

const uuid = new RegExp(UUID_PATTERN);

/** The fields every event has (docs/events.md "Fields"), checked on each one received. */
function expectCommonFields(e: HeraldEvent, appId: string): void {
  expect(e.event.id).to.match(uuid);
  expect(e.event.app_id).to.equal(appId);
  expect(e.event.timestamp).to.be.a('number').and.to.equal(Math.floor(Date.parse(e.event.datetime) / 1000));
  expect(e.event.datetime).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
}

describe('events: clicked, paused and Live Activity kinds at a real receiver', function () {
  this.timeout(120_000);
  const env = useTestEnv();
  let stack: DeliveryStack;
  let receiver: Receiver;
  const closers: Array<() => Promise<void>> = [];
  /** Every receiver of this file: the docs' examples are checked against what they took. */
  const receivers: Receiver[] = [];
  // Apple found the refused push-to-start token invalid an hour ago; it was registered before.
  const appleGoneAt = Date.now() - 3_600_000 + 321;

  before(async () => {
    stack = await startDeliveryStack(
      env,
      'eventskinds',
      {
        rules: [
          { prefix: 'dead', status: 410, reason: 'Unregistered', timestamp: appleGoneAt },
          { prefix: 'bade', status: 400, reason: 'BadDeviceToken' },
          // Apple's 410 an hour old, for installs registered since: they stay subscribed.
          { prefix: 'feed', status: 410, reason: 'Unregistered', timestamp: appleGoneAt },
          // Accepted after 1.5 s: a chunk still in flight when the app's invoice goes overdue.
          { prefix: 'de1a', delayMs: 1500 },
        ],
      },
      { events: { httpHosts: ['127.0.0.1'], lanes: 2, idleMs: 50, backoff: { baseMs: 100, maxMs: 400 } } },
    );
    const secret = whsec();
    receiver = await startReceiver(secret);
    receivers.push(receiver);
    closers.push(receiver.close);
    await addDestination(env.pool, stack.app.app.id, 'all', receiver.url, secret);
  });
  after(async () => {
    for (const close of closers) await close();
    await stack?.close();
  });

  const received = (r: Receiver = receiver) => eventsOf(r.accepted);
  const ofSend = (id: number | string, r: Receiver = receiver) => received(r).filter((e) => e.message?.id === String(id));
  const finishedEvent = (id: number | string, r: Receiver = receiver) => ofSend(id, r).find((e) => e.event.kind === 'notification.finished');

  it('the manifest check and the CRD accept every new kind in a destination\'s kinds', () => {
    const kinds: EventKind[] = ['message.push.clicked', 'notification.paused', 'live_activity.token.removed', 'live_activity.ended'];
    const [d] = checkEventsSpec({ destinations: [{ name: 'new-kinds', url: 'https://hooks.example.com/h', kinds, secretRef: { name: 's', key: 'k' } }] }, []);
    expect(d.kinds).to.deep.equal(kinds);
    expect(EVENT_KINDS).to.include.members(kinds);
  });

  it('docs/events.md lists every kind in its table, with an example body', async () => {
    const doc = await readFile(new URL('../../docs/events.md', import.meta.url), 'utf8');
    for (const kind of EVENT_KINDS) {
      expect(doc, `the row of ${kind}`).to.include(`| \`${kind}\` |`);
      expect(doc, `the example of ${kind}`).to.include(`"kind": "${kind}"`);
    }
  });

  it('an open reported by the app reaches the receiver as message.push.clicked, once per install, with its fields', async () => {
    const { app } = stack.app;
    await addDevices(env.pool, app.id, 3, { prefix: 'c1', externalIdPrefix: 'opener-' });
    const subs = (await env.pool.query(`SELECT id::text, external_id FROM subscriptions WHERE app_id = $1 AND external_id LIKE 'opener-%' ORDER BY external_id`, [app.id])).rows;
    const [a, b, outsider] = subs;
    const res = await stack.client.createNotification(Object.assign(new OneSignal.Notification(), { app_id: app.id, include_subscription_ids: [a.id, b.id], contents: { en: 'open me' } }));
    await waitFinal(env.pool, Number(res.id));
    const open = (sub: string) => stack.api.request('POST', `/api/v1/notifications/${res.id}/opened`, { body: { app_id: app.id, subscription_id: sub } });
    expect((await open(a.id)).status).to.equal(200);
    expect((await open(a.id)).status).to.equal(200); // a repeat: counted once, reported once
    expect((await open(outsider.id)).status).to.equal(200); // not in the audience: neither
    expect((await open(b.id)).status).to.equal(200);
    // b's event is recorded after the others: once it is in, theirs would be too.
    const clicked = () => ofSend(res.id!).filter((e) => e.event.kind === 'message.push.clicked');
    await waitFor("b's click at the receiver", () => clicked().some((e) => e.subscription?.id === b.id));
    expect(receiver.badSignatures).to.equal(0);
    expect(clicked().map((e) => [e.subscription!.id, e.user!.external_id])).to.deep.equal([[a.id, a.external_id], [b.id, b.external_id]]);
    const first = clicked()[0];
    expectCommonFields(first, app.id);
    expect(first.event).to.include({ kind: 'message.push.clicked', subscription_device_type: 'iOS' });
    expect(first.event.data).to.deep.equal({});
    expect(first.message).to.deep.equal({ id: String(res.id) });
    expect(Object.keys(first).sort()).to.deep.equal(['event', 'message', 'subscription', 'user']);
    expect((await env.pool.query('SELECT clicked FROM sends WHERE id = $1', [res.id])).rows[0].clicked).to.equal(2);
  });

  it("a 410 older than the install's registration: message.push.failed with Apple's reason, and no unsubscribe (the install stays subscribed)", async () => {
    const { app } = stack.app;
    await addDevices(env.pool, app.id, 1, { prefix: 'feed' }); // registered now, after Apple's timestamp
    const sub = (await env.pool.query(`SELECT id::text FROM subscriptions WHERE app_id = $1 AND token LIKE 'feed%'`, [app.id])).rows[0].id;
    const res = await stack.client.createNotification(Object.assign(new OneSignal.Notification(), { app_id: app.id, include_subscription_ids: [sub], contents: { en: 'x' } }));
    await waitFinal(env.pool, Number(res.id));
    await waitFor('the finished event', () => finishedEvent(res.id!));
    const events = ofSend(res.id!);
    expect(events.map((e) => e.event.kind)).to.deep.equal(['notification.created', 'message.push.failed', 'notification.finished']);
    expect(events[1].event.data).to.deep.equal({ reason: 'Unregistered' });
    expect(events[1].subscription).to.deep.equal({ id: sub });
    expect((await env.pool.query('SELECT subscribed FROM subscriptions WHERE id = $1', [sub])).rows[0].subscribed).to.equal(true);
  });

  /** An app of its own (its invoice goes overdue), on the same simulator key, with its own receiver. */
  async function pausingApp(name: string) {
    const t = await createTestApp(env.pool, name, { key: stack.app.key, teamId: stack.app.teamId });
    const secret = whsec();
    const r = await startReceiver(secret);
    receivers.push(r);
    closers.push(r.close);
    await addDestination(env.pool, t.app.id, 'all', r.url, secret);
    return { app: t.app, receiver: r };
  }

  it('a running send paused by an overdue invoice: notification.paused, then notification.finished stopped "paused"', async () => {
    const { app, receiver: r } = await pausingApp('eventspause');
    await addDevices(env.pool, app.id, 3, { prefix: 'de1a' });
    const created = await send(env, app, { included_segments: ['Subscribed Users'], contents: { en: 'x' } });
    // What the controller writes for spec.billing.invoiceOverdue; the sender's scheduler sweeps.
    await setInvoiceOverdue(env.pool, app.id, true);
    const { final } = await waitFinal(env.pool, created.body.id);
    await waitFor('the finished event', () => finishedEvent(created.body.id, r));
    const events = ofSend(created.body.id, r).filter((e) => e.event.kind.startsWith('notification.'));
    expect(events.map((e) => e.event.kind)).to.deep.equal(['notification.created', 'notification.paused', 'notification.finished']);
    const [, paused, finished] = events;
    expectCommonFields(paused, app.id);
    expect(Object.keys(paused).sort()).to.deep.equal(['event', 'message', 'notification']);
    expect(['queued', 'sending']).to.include(paused.notification!.status); // its status when the pause stopped it
    expect(finished.notification).to.deep.include({ status: final.status, sent: final.sent, stopped: 'paused' });
    await setInvoiceOverdue(env.pool, app.id, false);
  });

  it('a scheduled send that comes due while the invoice is overdue: notification.paused, then finished as a draft with all left out', async () => {
    const { app, receiver: r } = await pausingApp('eventspausefire');
    await addDevices(env.pool, app.id, 2, { prefix: 'c2' });
    const created = await send(env, app, { included_segments: ['Subscribed Users'], contents: { en: 'x' }, send_after: new Date(Date.now() + 1500).toISOString() });
    await setInvoiceOverdue(env.pool, app.id, true);
    await waitFinal(env.pool, created.body.id); // fired by the sender's scheduler
    await waitFor('the finished event', () => finishedEvent(created.body.id, r));
    const events = ofSend(created.body.id, r);
    expect(events.map((e) => e.event.kind)).to.deep.equal(['notification.created', 'notification.paused', 'notification.finished']);
    expect(events[1].notification).to.deep.equal({ status: 'scheduled' });
    expect(events[2].notification).to.deep.equal({ status: 'draft', sent: 0, failed: 0, skipped: 0, left_out: 2, stopped: 'paused' });
    await setInvoiceOverdue(env.pool, app.id, false);
  });

  // Live Activities: installs as the SDK registers them, tokens through the SDK's calls.
  async function install(n: number): Promise<string> {
    const res = await stack.api.request('POST', `/api/v1/apps/${stack.app.app.id}/subscriptions`, { body: { token: token('c3', n), external_id: `rider-${n}` } });
    expect(res.status).to.equal(201);
    return res.body.id;
  }
  const la = (path: string) => `/api/v1/apps/${stack.app.app.id}/${path}`;
  const setUpdate = (sub: string, activity: string, pushToken: string) => stack.api.request('POST', la(`live_activities/${activity}/token`), { body: { subscription_id: sub, push_token: pushToken } });
  const setStart = (sub: string, type: string, pushToken: string) => stack.api.request('PUT', la(`activities/tokens/start/${type}/subscriptions/${sub}`), { body: { activity_token: pushToken, device_type: 0 } });
  const kindsOf = (events: HeraldEvent[]) => events.map((e) => e.event.kind);

  it('tokens the simulator refuses: live_activity.token.removed with Apple\'s reason (and a 410\'s timestamp); no message.push.* for Live Activity pushes', async () => {
    const [bad, good, gone] = await Promise.all([1, 2, 3].map(install));
    expect((await setUpdate(bad, 'ride-1', token('bade', 1))).status).to.equal(200);
    expect((await setUpdate(good, 'ride-1', token('0a', 1))).status).to.equal(200);
    expect((await setStart(gone, 'RideAttributes', token('dead', 1))).status).to.equal(200);
    // Registered before Apple found it invalid (a token registered after stays, and says nothing).
    await env.pool.query(`UPDATE live_activity_tokens SET updated_at = now() - interval '2 hours' WHERE subscription_id = $1`, [gone]);

    const update = await stack.api.request('POST', la('live_activities/ride-1/notifications'), { key: stack.key, body: { event: 'update', event_updates: { eta: 3 } } });
    expect(update.status).to.equal(200);
    const start = await stack.client.startLiveActivity(stack.app.app.id, 'RideAttributes', Object.assign(new OneSignal.StartLiveActivityRequest(), {
      name: 'ride', event: 'start', activity_id: 'ride-2', event_attributes: { driver: 'Kim' }, event_updates: { eta: 9 },
      contents: { en: 'On the way' }, headings: { en: 'Ride' }, include_subscription_ids: [gone],
    }));
    const ids = [String(update.body.id), String(start.notification_id)];
    for (const id of ids) await waitFinal(env.pool, Number(id));
    // A send's finished event is recorded with (or after) its last chunk's: all its events are in.
    await waitFor('both finished events', () => ids.every((id) => finishedEvent(id)));
    const updateEvents = ofSend(ids[0]);
    const startEvents = ofSend(ids[1]);
    expect(kindsOf(updateEvents)).to.deep.equal(['notification.created', 'live_activity.token.removed', 'notification.finished']);
    expect(kindsOf(startEvents)).to.deep.equal(['notification.created', 'live_activity.token.removed', 'notification.finished']);
    const refused = updateEvents[1];
    expectCommonFields(refused, stack.app.app.id);
    expect(refused.event).to.include({ subscription_device_type: 'iOS' });
    expect(refused.event.data).to.deep.equal({ token: 'update', activity_id: 'ride-1', reason: 'BadDeviceToken' });
    expect(refused.subscription).to.deep.equal({ id: bad });
    expect(refused.user).to.deep.equal({ external_id: 'rider-1' });
    expect(startEvents[1].event.data).to.deep.equal({ token: 'push_to_start', activity_type: 'RideAttributes', reason: 'Unregistered', apple_timestamp: appleGoneAt });
    expect(startEvents[1].subscription).to.deep.equal({ id: gone });
    expect(updateEvents[2].notification).to.deep.include({ sent: 1, failed: 1 }); // the good token's push: counted, no message.push.sent
  });

  it('an end push Apple accepted, and the app removing its tokens: live_activity.ended (by push, by app) and live_activity.token.removed (reason app)', async () => {
    const [rider, dismisser, starter] = await Promise.all([11, 12, 13].map(install));
    expect((await setUpdate(rider, 'ride-9', token('0b', 1))).status).to.equal(200);
    expect((await setUpdate(dismisser, 'ride-8', token('0c', 1))).status).to.equal(200);
    expect((await setStart(starter, 'RideAttributes', token('0d', 1))).status).to.equal(200);

    const end = await stack.api.request('POST', la('live_activities/ride-9/notifications'), { key: stack.key, body: { event: 'end', event_updates: { eta: 0 } } });
    expect(end.status).to.equal(200);
    await waitFinal(env.pool, Number(end.body.id));
    // The activity ended on the device: the SDK removes its update token; push-to-start is no longer wanted.
    expect((await stack.api.request('DELETE', la(`live_activities/ride-8/token/${dismisser}`))).status).to.equal(200);
    expect((await stack.api.request('DELETE', la(`activities/tokens/start/RideAttributes/subscriptions/${starter}`))).status).to.equal(200);
    expect((await stack.api.request('DELETE', la(`activities/tokens/start/RideAttributes/subscriptions/${starter}`))).status).to.equal(404); // nothing removed: no event

    const mine = () => received().filter((e) => [rider, dismisser, starter].includes(e.subscription?.id ?? ''));
    await waitFor('the push-to-start removal at the receiver', () => mine().some((e) => e.subscription!.id === starter));
    const events = mine();
    expect(events.map((e) => [e.event.kind, e.subscription!.id])).to.deep.equal([
      ['live_activity.ended', rider],
      ['live_activity.ended', dismisser],
      ['live_activity.token.removed', starter],
    ]);
    const [byPush, byApp, removed] = events;
    for (const e of events) expectCommonFields(e, stack.app.app.id);
    expect(byPush.event.data).to.deep.equal({ activity_id: 'ride-9', ended_by: 'push' });
    expect(byPush.message).to.deep.equal({ id: String(end.body.id) });
    expect(byPush.user).to.deep.equal({ external_id: 'rider-11' });
    expect(byApp.event.data).to.deep.equal({ activity_id: 'ride-8', ended_by: 'app' });
    expect(byApp).to.not.have.property('message'); // a fact of no send
    expect(removed.event.data).to.deep.equal({ token: 'push_to_start', activity_type: 'RideAttributes', reason: 'app' });
    expect(removed).to.not.have.property('message');
    expect(kindsOf(ofSend(end.body.id))).to.deep.equal(['notification.created', 'live_activity.ended', 'notification.finished']);
  });

  it('the app unsubscribing a subscribed install (the SDK\'s subscribed false, a Subscription\'s enabled false): subscription.push.unsubscribed, reason app, once per change', async () => {
    const { app } = stack.app;
    const [a, b, c] = await Promise.all([41, 42, 43].map(install));
    const sdk = (method: 'POST' | 'PATCH', path: string, body: object) => stack.api.request(method, `/api/v1/apps/${app.id}/subscriptions${path}`, { body });
    expect((await sdk('PATCH', `/${a}`, { subscribed: false })).status).to.equal(200); // 1: a
    expect((await sdk('PATCH', `/${a}`, { subscribed: false })).status).to.equal(200); // a repeat: nothing
    expect((await sdk('POST', '', { token: token('c3', 41), subscribed: false })).status).to.equal(200); // unsubscribed already: nothing
    const fresh = await sdk('POST', '', { token: token('c3', 44), subscribed: false });
    expect(fresh.status).to.equal(201); // registered unsubscribed: nothing
    const d: string = fresh.body.id;
    expect((await sdk('PATCH', `/${a}`, { subscribed: true })).status).to.equal(200);
    expect((await sdk('POST', '', { token: token('c3', 41), subscribed: false })).status).to.equal(200); // 2: a, by its registration
    // The app's backend moving c's token to a user, disabled (createUser: OneSignal's Subscription body).
    const user = await stack.api.request('POST', `/api/v1/apps/${app.id}/users`, { key: stack.key, body: { identity: { external_id: 'holder-43' }, subscriptions: [{ type: 'iOSPush', token: token('c3', 43), enabled: false }] } });
    expect(user.status).to.equal(201); // 3: c
    expect((await sdk('PATCH', `/${b}`, { subscription: { enabled: false } })).status).to.equal(200); // 4: b, the official client's wrapped update
    // b's event is recorded last: once it is in, any event of the calls before it would be too.
    const mine = () => received().filter((e) => [a, b, c, d].includes(e.subscription?.id ?? ''));
    await waitFor("b's unsubscribe at the receiver", () => mine().some((e) => e.subscription!.id === b));
    const events = mine();
    expect(events.map((e) => [e.event.kind, e.subscription!.id])).to.deep.equal([
      ['subscription.push.unsubscribed', a],
      ['subscription.push.unsubscribed', a],
      ['subscription.push.unsubscribed', c],
      ['subscription.push.unsubscribed', b],
    ]);
    for (const e of events) {
      expectCommonFields(e, app.id);
      expect(e.event).to.include({ subscription_device_type: 'iOS' });
      expect(e.event.data).to.deep.equal({ reason: 'app' });
      expect(e).to.not.have.property('message'); // a fact of no send
    }
    expect(events[0].user).to.deep.equal({ external_id: 'rider-41' });
    expect(events[2].user).to.deep.equal({ external_id: 'holder-43' });
  });
  it('an install erased before its events are delivered leaves the click and Live Activity records: the events keep their places without it', async () => {
    const { app } = stack.app;
    // A destination that never takes anything holds the records (retention keeps what it has not taken).
    await env.pool.query(`INSERT INTO event_destinations (app_id, name, url, secret) VALUES ($1, 'held', 'http://127.0.0.1:1/', '\\x00')`, [app.id]);
    const sub = await install(21);
    const res = await stack.client.createNotification(Object.assign(new OneSignal.Notification(), { app_id: app.id, include_subscription_ids: [sub], contents: { en: 'x' } }));
    await waitFinal(env.pool, Number(res.id));
    expect((await stack.api.request('POST', `/api/v1/notifications/${res.id}/opened`, { body: { app_id: app.id, subscription_id: sub } })).status).to.equal(200);
    expect((await setUpdate(sub, 'ride-21', token('0e', 21))).status).to.equal(200);
    expect((await stack.api.request('DELETE', la(`live_activities/ride-21/token/${sub}`))).status).to.equal(200);
    const records = async () => (await env.pool.query(`SELECT body FROM event_records WHERE app_id = $1 AND kind = 'device_events' ORDER BY id DESC LIMIT 2`, [app.id])).rows.map((r) => r.body);
    expect(await records()).to.deep.equal([
      { d: [['live_activity.ended', sub, { activity_id: 'ride-21', ended_by: 'app' }]] },
      { d: [['message.push.clicked', sub, {}]] },
    ]);
    await stack.client.deleteSubscription(app.id, sub);
    expect(await records()).to.deep.equal([
      { d: [['live_activity.ended', null, { activity_id: 'ride-21', ended_by: 'app' }]] },
      { d: [['message.push.clicked', null, {}]] },
    ]);
    const anywhere = await env.pool.query(`SELECT count(*)::int AS n FROM event_records WHERE app_id = $1 AND body::text LIKE '%' || $2 || '%'`, [app.id, sub]);
    expect(anywhere.rows[0].n).to.equal(0);
    await env.pool.query(`DELETE FROM event_destinations WHERE app_id = $1 AND name = 'held'`, [app.id]);
  });

  it('an install erased while the app removes its Live Activity token: the record commits after the erasure\'s scrub, yet the receiver never gets the install', async () => {
    const { app } = stack.app;
    const secret = whsec();
    const r = await startReceiver(secret);
    closers.push(r.close);
    await addDestination(env.pool, app.id, 'erasing', r.url, secret);
    // Its lease held until the erasure is over: no lane reads its batch in between.
    await env.pool.query(`UPDATE event_destinations SET lease_until = now() + interval '1 hour' WHERE app_id = $1 AND name = 'erasing'`, [app.id]);
    const sub = await install(31);
    expect((await setUpdate(sub, 'ride-31', token('0f', 31))).status).to.equal(200);
    // The SDK's removal with its event, not yet committed, while deleteSubscription runs: its scrub
    // of the event records cannot see that record, and its delete of the install waits for the
    // token's row, so the record commits (with the install's id) before the erasure does.
    const db = await env.pool.connect();
    let erasure: Promise<unknown> | undefined;
    try {
      await db.query('BEGIN');
      expect(await removeTokenForApp(db, { appId: app.id, kind: 'update', activity: 'ride-31', subscriptionId: sub })).to.equal(true);
      erasure = stack.client.deleteSubscription(app.id, sub);
      await waitFor('the erasure waiting for the removal', async () => (await env.pool.query(
        `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'DELETE FROM subscriptions WHERE id%'`,
      )).rowCount! > 0);
      await db.query('COMMIT');
    } finally {
      db.release();
    }
    await erasure;
    const last = await env.pool.query(`SELECT body FROM event_records WHERE app_id = $1 AND kind = 'device_events' ORDER BY id DESC LIMIT 1`, [app.id]);
    expect(last.rows[0].body).to.deep.equal({ d: [['live_activity.ended', sub, { activity_id: 'ride-31', ended_by: 'app' }]] }); // the race happened
    await env.pool.query(`UPDATE event_destinations SET lease_until = NULL WHERE app_id = $1 AND name = 'erasing'`, [app.id]);
    const ended = await waitFor('the ended event at the receiver', () => eventsOf(r.accepted).find((e) => e.event.kind === 'live_activity.ended' && e.event.data?.activity_id === 'ride-31'));
    expect(r.badSignatures).to.equal(0);
    expect(ended).to.not.have.property('subscription');
    expect(ended).to.not.have.property('user');
    expect(JSON.stringify(r.accepted)).to.not.include(sub);
  });

  // Last: it reads what the tests above made each receiver take (with an unsubscribe and a cancel of its own).
  it("docs/events.md's example of each kind has the shape a receiver takes: the same fields, each of the same type", async () => {
    const { app } = stack.app;
    await addDevices(env.pool, app.id, 1, { prefix: 'dead', externalIdPrefix: 'gone-' });
    const dead = (await env.pool.query(`SELECT id::text FROM subscriptions WHERE app_id = $1 AND external_id LIKE 'gone-%'`, [app.id])).rows[0].id;
    // Registered before Apple found its token gone (an hour ago): Apple's 410 unsubscribes it, with its timestamp.
    await env.pool.query(`UPDATE subscriptions SET registered_at = now() - interval '2 hours', created_at = now() - interval '2 hours' WHERE id = $1`, [dead]);
    const gone = await send(env, app, { include_subscription_ids: [dead], contents: { en: 'x' } });
    const later = await send(env, app, { include_subscription_ids: [dead], contents: { en: 'x' }, send_after: new Date(Date.now() + 3_600_000).toISOString() });
    expect((await stack.api.request('DELETE', `/api/v1/notifications/${later.body.id}?app_id=${app.id}`, { key: stack.key })).status).to.equal(200);
    await waitFor('the unsubscribe and the cancel at the receiver', () => finishedEvent(gone.body.id) && finishedEvent(later.body.id));

    // Each leaf by its path and JSON type; an empty object is a leaf. A null is a string's absence
    // (`user.external_id`, `notification.stopped`): the docs show both.
    const shape = (v: unknown, at = ''): string[] => {
      if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length) return Object.entries(v).flatMap(([k, x]) => shape(x, at ? `${at}.${k}` : k));
      const type = v === null ? 'string' : Array.isArray(v) ? 'array' : typeof v === 'object' ? '{}' : typeof v;
      return [`${at}:${type}`];
    };
    const key = (v: unknown) => shape(v).sort().join(' ');
    const doc = await readFile(new URL('../../docs/events.md', import.meta.url), 'utf8');
    const block = doc.split('### An example of each kind')[1].split('```json')[1].split('```')[0];
    const examples = block.trim().split(/\n\s*\n/).map((text) => JSON.parse(text) as HeraldEvent);
    expect(new Set(examples.map((e) => e.event.kind))).to.deep.equal(new Set(EVENT_KINDS));
    const taken = new Set(receivers.flatMap((r) => eventsOf(r.accepted)).map(key));
    for (const example of examples) {
      expect([...taken].filter((k) => k.includes(`event.kind:`) && shape(example).every((leaf) => k.includes(leaf)) && k === key(example)), `${example.event.kind}: ${key(example)}`).to.have.length(1);
    }
  });
});
