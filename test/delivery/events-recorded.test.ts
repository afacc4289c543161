// Event streams, first step (issue 28): a send's events are recorded in the transactions of the
// facts they report, and expand into OneSignal-shaped events with stable ids. A send through the
// official client to the simulator, whose rules refuse some tokens (410 with Apple's timestamp,
// BadDeviceToken, PayloadTooLarge): the records hold every device's outcome, one row per chunk.
import { expect } from 'chai';
import * as OneSignal from '@onesignal/node-onesignal';
import { useTestEnv } from '../env/index.js';
import { cancelSend } from '../../core/send/cancel.js';
import { eventCount, expandRecord, type HeraldEvent, type RecordRow } from '../../core/events/expand.js';
import { addDevices, createTestApp, send, startDeliveryStack, waitFinal, type DeliveryStack } from './fixtures.js';
import type { Pool } from '../../core/store/db.js';

async function addDestination(pool: Pool, appId: string): Promise<void> {
  await pool.query(`INSERT INTO event_destinations (app_id, name, url, secret) VALUES ($1, 'test', 'http://127.0.0.1:1/', '\\x00')`, [appId]);
}

async function recordsOf(pool: Pool, sendId: number): Promise<RecordRow[]> {
  const res = await pool.query(
    `SELECT id::int, app_id AS "appId", send_id::int AS "sendId", kind, body, recorded_at AS "recordedAt" FROM event_records WHERE send_id = $1 ORDER BY id`,
    [sendId],
  );
  return res.rows;
}

async function eventsOf(pool: Pool, sendId: number): Promise<HeraldEvent[]> {
  const ext = await pool.query(`SELECT id::text, external_id FROM subscriptions`);
  const externalIds = new Map<string, string | null>(ext.rows.map((r) => [r.id, r.external_id]));
  return (await recordsOf(pool, sendId)).flatMap((row) => expandRecord(row, externalIds));
}

describe('events: recorded with the facts they report', function () {
  this.timeout(120_000);
  const env = useTestEnv();
  let stack: DeliveryStack;
  const dayAgo = Date.now() - 86_400_000;

  before(async () => {
    stack = await startDeliveryStack(env, 'eventsrec', {
      rules: [
        { prefix: 'e410', status: 410 },
        { prefix: 'bad0', status: 400, reason: 'BadDeviceToken' },
        { prefix: '1a1a', status: 400, reason: 'PayloadTooLarge' },
      ],
    });
    // The installs registered a day before Apple's 410 (a 410 older than the registration keeps it).
    await addDestination(env.pool, stack.app.app.id);
    await addDevices(env.pool, stack.app.app.id, 3, { prefix: 'a0', externalIdPrefix: 'user-' });
    await addDevices(env.pool, stack.app.app.id, 1, { prefix: 'e410' });
    await addDevices(env.pool, stack.app.app.id, 1, { prefix: 'bad0' });
    await addDevices(env.pool, stack.app.app.id, 1, { prefix: '1a1a' });
    await env.pool.query(`UPDATE subscriptions SET last_active = to_timestamp($2 / 1000.0), created_at = to_timestamp($2 / 1000.0) WHERE app_id = $1`, [stack.app.app.id, dayAgo]);
  });
  after(() => stack?.close());

  it('a send: created, then each device sent, failed or unsubscribed with its fields, then finished with the counts', async () => {
    const { app } = stack.app;
    const res = await stack.client.createNotification(Object.assign(new OneSignal.Notification(), { app_id: app.id, included_segments: ['Subscribed Users'], contents: { en: 'hi' } }));
    const id = Number(res.id);
    const { final } = await waitFinal(env.pool, id);
    expect(final).to.include({ status: 'approved', sent: 3, failed: 3 });

    const records = await recordsOf(env.pool, id);
    expect(records.map((r) => r.kind)).to.deep.equal(['notification.created', 'chunk', 'notification.finished']); // one row for the chunk
    const events = await eventsOf(env.pool, id);
    const kinds = events.map((e) => e.event.kind);
    expect(kinds.filter((k) => k === 'message.push.sent')).to.have.length(3);
    expect(kinds.filter((k) => k === 'message.push.failed')).to.have.length(3);
    expect(kinds.filter((k) => k === 'subscription.push.unsubscribed')).to.have.length(2);
    expect(eventCount(records[1])).to.equal(8); // 3 sent, 1 failed, 2 refused (failed + unsubscribed each)

    const subs = new Map((await env.pool.query(`SELECT id::text, token, external_id FROM subscriptions WHERE app_id = $1`, [app.id])).rows.map((r) => [r.token.slice(0, 4), r]));
    const about = (prefix: string, kind: string) => events.find((e) => e.event.kind === kind && e.subscription?.id === subs.get(prefix)!.id)!;

    const sent = about('a000', 'message.push.sent');
    expect(sent.event).to.include({ app_id: app.id, subscription_device_type: 'iOS' });
    expect(sent.message).to.deep.equal({ id: String(id) });
    expect(sent.user?.external_id).to.match(/^user-\d$/);
    expect(sent.event.id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(sent.event.timestamp).to.equal(Math.floor(new Date(sent.event.datetime).getTime() / 1000));

    expect(about('1a1a', 'message.push.failed').event.data).to.deep.equal({ reason: 'PayloadTooLarge' });
    expect(about('bad0', 'message.push.failed').event.data).to.deep.equal({ reason: 'BadDeviceToken' });
    expect(about('bad0', 'subscription.push.unsubscribed').event.data).to.deep.equal({ reason: 'BadDeviceToken' });
    const gone = about('e410', 'subscription.push.unsubscribed').event.data!;
    expect(gone.reason).to.equal('Unregistered');
    expect(gone.apple_timestamp).to.be.a('number').within(dayAgo, Date.now()); // Apple's, as the simulator stamped it
    expect(about('1a1a', 'subscription.push.unsubscribed')).to.equal(undefined); // a failure that keeps the install

    expect(events[0].event.kind).to.equal('notification.created');
    expect(events[0].notification).to.deep.include({ status: 'queued', estimate: 6 });
    const finished = events[events.length - 1];
    expect(finished.event.kind).to.equal('notification.finished');
    expect(finished.notification).to.deep.equal({ status: 'approved', sent: 3, failed: 3, skipped: 0, left_out: 0, stopped: null });

    // Every id distinct, and the same on every expansion (a retry, a replay).
    expect(new Set(events.map((e) => e.event.id)).size).to.equal(events.length);
    expect((await eventsOf(env.pool, id)).map((e) => e.event.id)).to.deep.equal(events.map((e) => e.event.id));
    // An expansion from a place in the row gives the same events from there.
    expect(expandRecord(records[1], new Map(), 5).map((e) => e.event.id)).to.deep.equal(events.slice(6, 9).map((e) => e.event.id));
  });

  it('a canceled send: created, canceled, then finished with its counts', async () => {
    const { app } = stack.app;
    const created = await send(env, app, { included_segments: ['All'], contents: { en: 'later' }, send_after: new Date(Date.now() + 3_600_000).toISOString() });
    expect(created.body.status).to.equal('scheduled');
    expect((await cancelSend(env.pool, app.id, created.body.id)).kind).to.equal('canceled');
    const events = await eventsOf(env.pool, created.body.id);
    expect(events.map((e) => e.event.kind)).to.deep.equal(['notification.created', 'notification.canceled', 'notification.finished']);
    expect(events[1].notification).to.deep.equal({ status: 'scheduled' });
    expect(events[2].notification).to.deep.include({ status: 'draft', sent: 0, stopped: 'canceled' });
  });

  it('an app with no destination: nothing is recorded', async () => {
    const other = await createTestApp(env.pool, 'eventsnone', { key: stack.app.key, teamId: stack.app.teamId });
    await addDevices(env.pool, other.app.id, 2, { prefix: 'a1' });
    const created = await send(env, other.app, { included_segments: ['All'], contents: { en: 'x' } });
    const { final } = await waitFinal(env.pool, created.body.id);
    expect(final).to.include({ status: 'approved', sent: 2 });
    expect(await recordsOf(env.pool, created.body.id)).to.deep.equal([]);
  });
});
