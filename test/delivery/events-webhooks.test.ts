// Event streams to webhook receivers (issue 28): a real HTTP receiver in the test verifies every
// request with the `standardwebhooks` library. A send through the official client to the
// simulator (a 410 with Apple's timestamp, BadDeviceToken, DeviceTokenNotForTopic, PayloadTooLarge) reaches it as sent,
// failed and unsubscribed events with their fields; a receiver answering 500 then 200 loses
// nothing and gets nothing twice but the same webhook-id again; a plain-http destination to a host
// the operator did not list gets nothing; one app's hanging destination does not hold up another's.
import { expect } from 'chai';
import * as OneSignal from '@onesignal/node-onesignal';
import { useTestEnv } from '../env/index.js';
import { addDevices, createTestApp, send, startDeliveryStack, waitFinal, type DeliveryStack } from './fixtures.js';
import { addDestination, kindsOf, startReceiver, whsec, type Delivery } from './event-receiver.js';
import { waitFor } from '../support/wait.js';


describe('events: webhook destinations with a real receiver', function () {
  this.timeout(120_000);
  const env = useTestEnv();
  let stack: DeliveryStack;
  const closers: Array<() => Promise<void>> = [];
  const dayAgo = Date.now() - 86_400_000;
  // When the simulator says Apple found the e410 token invalid: after the installs registered
  // (dayAgo), so they are unsubscribed, and not now, so the event can only carry it from Apple.
  const appleGoneAt = Date.now() - 3_600_000 + 123;

  before(async () => {
    stack = await startDeliveryStack(
      env,
      'eventshooks',
      { rules: [{ prefix: 'e410', status: 410, timestamp: appleGoneAt }, { prefix: 'bad0', status: 400, reason: 'BadDeviceToken' }, { prefix: 'd0c0', status: 400, reason: 'DeviceTokenNotForTopic' }, { prefix: '1a1a', status: 400, reason: 'PayloadTooLarge' }] },
      // The hanging receiver's request holds a lane for the whole deadline: far past the waits below.
      { events: { httpHosts: ['127.0.0.1'], lanes: 4, idleMs: 50, timeoutMs: 90_000, backoff: { baseMs: 100, maxMs: 400 } } },
    );
  });
  after(async () => {
    for (const close of closers) await close();
    await stack?.close();
  });

  it('a send reaches the receiver as created, sent, failed, unsubscribed and finished events, signed and with their fields', async () => {
    const secret = whsec();
    const receiver = await startReceiver(secret);
    closers.push(receiver.close);
    const { app } = stack.app;
    await addDestination(env.pool, app.id, 'all', receiver.url, secret);
    await addDevices(env.pool, app.id, 3, { prefix: 'a0', externalIdPrefix: 'user-' });
    await addDevices(env.pool, app.id, 1, { prefix: 'e410' });
    await addDevices(env.pool, app.id, 1, { prefix: 'bad0' });
    await addDevices(env.pool, app.id, 1, { prefix: 'd0c0' }); // another app's token (a wrong bundle id): refused for good
    await addDevices(env.pool, app.id, 1, { prefix: '1a1a' });
    await env.pool.query(`UPDATE subscriptions SET created_at = to_timestamp($2 / 1000.0) WHERE app_id = $1`, [app.id, dayAgo]);
    const res = await stack.client.createNotification(Object.assign(new OneSignal.Notification(), { app_id: app.id, included_segments: ['Subscribed Users'], contents: { en: 'hi' } }));
    await waitFinal(env.pool, Number(res.id));
    await waitFor('the finished event', () => kindsOf(receiver.accepted).includes('notification.finished'));
    const events = receiver.accepted.flatMap((d) => d.events);
    expect(receiver.badSignatures).to.equal(0);
    expect(events.map((e) => e.event.kind).sort()).to.deep.equal([
      'message.push.failed', 'message.push.failed', 'message.push.failed', 'message.push.failed',
      'message.push.sent', 'message.push.sent', 'message.push.sent',
      'notification.created', 'notification.finished',
      'subscription.push.unsubscribed', 'subscription.push.unsubscribed', 'subscription.push.unsubscribed',
    ]);
    expect(new Set(events.map((e) => e.event.id)).size).to.equal(events.length);
    const token = new Map((await env.pool.query('SELECT id::text, token FROM subscriptions WHERE app_id = $1', [app.id])).rows.map((r) => [r.id, r.token.slice(0, 4)]));
    const gone = events.find((e) => e.event.kind === 'subscription.push.unsubscribed' && token.get(e.subscription!.id) === 'e410')!;
    expect(gone.event).to.include({ app_id: app.id, subscription_device_type: 'iOS' });
    expect(gone.event.data!.reason).to.equal('Unregistered');
    expect(gone.event.data!.apple_timestamp).to.equal(appleGoneAt);
    expect(gone.message?.id).to.equal(String(res.id));
    const failed = events.filter((e) => e.event.kind === 'message.push.failed').map((e) => [token.get(e.subscription!.id), e.event.data!.reason]).sort();
    expect(failed).to.deep.equal([['1a1a', 'PayloadTooLarge'], ['bad0', 'BadDeviceToken'], ['d0c0', 'DeviceTokenNotForTopic'], ['e410', 'Unregistered']]);
    const unsubscribed = events.filter((e) => e.event.kind === 'subscription.push.unsubscribed').map((e) => [token.get(e.subscription!.id), e.event.data]).sort();
    expect(unsubscribed).to.deep.equal([
      ['bad0', { reason: 'BadDeviceToken' }],
      ['d0c0', { reason: 'DeviceTokenNotForTopic' }],
      ['e410', { reason: 'Unregistered', apple_timestamp: appleGoneAt }],
    ]);
    const sent = events.filter((e) => e.event.kind === 'message.push.sent');
    expect(sent.map((e) => e.user!.external_id).sort()).to.deep.equal(['user-1', 'user-2', 'user-3']);
    expect(events.find((e) => e.event.kind === 'notification.finished')!.notification).to.deep.equal({ status: 'approved', sent: 3, failed: 4, skipped: 0, left_out: 0, stopped: null });
    await env.pool.query(`DELETE FROM event_destinations WHERE app_id = $1`, [app.id]);
  });

  it('a receiver answering 500 then 200: the same webhook-id again, nothing lost, nothing else twice', async () => {
    const secret = whsec();
    const receiver = await startReceiver(secret, (n) => (n <= 2 ? 500 : 200));
    closers.push(receiver.close);
    const other = await createTestApp(env.pool, 'eventsretry', { key: stack.app.key, teamId: stack.app.teamId });
    await addDestination(env.pool, other.app.id, 'backend', receiver.url, secret, ['message.push.sent', 'notification.finished']);
    await addDevices(env.pool, other.app.id, 700, { prefix: 'a2' }); // two chunks
    const created = await send(env, other.app, { included_segments: ['All'], contents: { en: 'x' } });
    await waitFinal(env.pool, created.body.id);
    await waitFor('the finished event', () => kindsOf(receiver.accepted).includes('notification.finished'));
    // A retry of the same range is the same message; a range grown meanwhile (the second chunk
    // recorded behind a short first batch) is a new one that begins with the same events.
    const firstIds = receiver.requests[0].events.map((e) => e.event.id);
    for (const r of receiver.requests.slice(1, 3)) {
      if (r.webhookId === receiver.requests[0].webhookId) expect(r.events).to.deep.equal(receiver.requests[0].events);
      else expect(r.events.slice(0, firstIds.length).map((e) => e.event.id)).to.deep.equal(firstIds);
    }
    const ids = receiver.accepted.flatMap((d) => d.events.map((e) => e.event.id));
    expect(new Set(ids).size).to.equal(ids.length); // none twice among the accepted
    expect(kindsOf(receiver.accepted).filter((k) => k === 'message.push.sent')).to.have.length(700); // none lost
    expect(new Set(kindsOf(receiver.accepted))).to.deep.equal(new Set(['message.push.sent', 'notification.finished'])); // its kinds only
    expect(new Set(receiver.accepted.map((d) => d.webhookId)).size).to.equal(receiver.accepted.length);
    const row = (await env.pool.query('SELECT attempts, retry_at, last_error, failing_since FROM event_destinations WHERE app_id = $1', [other.app.id])).rows[0];
    expect(row).to.deep.equal({ attempts: 0, retry_at: null, last_error: null, failing_since: null });
  });

  it('a 2xx lost after the receiver took a batch, more events recorded before the retry: every event arrives, and a webhook-id never repeats with another body', async () => {
    const secret = whsec();
    const receiver = await startReceiver(secret, (n) => (n === 1 ? 'swallow' : 200));
    closers.push(receiver.close);
    const other = await createTestApp(env.pool, 'eventslost', { key: stack.app.key, teamId: stack.app.teamId });
    await addDestination(env.pool, other.app.id, 'backend', receiver.url, secret, ['message.push.sent']);
    await addDevices(env.pool, other.app.id, 3, { prefix: 'a3' });
    const first = await send(env, other.app, { included_segments: ['All'], contents: { en: 'x' } });
    await waitFinal(env.pool, first.body.id);
    await waitFor('the first batch', () => receiver.requests.length === 1);
    expect(receiver.requests[0].events).to.have.length(3);
    // While the first answer is in flight, 497 more events are recorded.
    await addDevices(env.pool, other.app.id, 494, { prefix: 'a4' });
    const second = await send(env, other.app, { included_segments: ['All'], contents: { en: 'y' } });
    await waitFinal(env.pool, second.body.id);
    receiver.loseHeld();
    // A receiver deduplicating on webhook-id, as docs/events.md tells it to: a repeated id is dropped.
    const kept = () => {
      const byId = new Map<string, Delivery>();
      for (const d of receiver.accepted) if (!byId.has(d.webhookId)) byId.set(d.webhookId, d);
      return new Set([...byId.values()].flatMap((d) => d.events.map((e) => e.event.id)));
    };
    const place = async () => (await env.pool.query('SELECT delivered_through::bigint AS t FROM event_destinations WHERE app_id = $1', [other.app.id])).rows[0].t;
    const last = (await env.pool.query('SELECT max(id)::bigint AS m FROM event_records WHERE app_id = $1', [other.app.id])).rows[0].m;
    await waitFor('the destination past every record', async () => (await place()) === last);
    expect(kept().size).to.equal(500); // 3 + 497: none lost
    const bodies = new Map<string, string>();
    for (const d of receiver.requests) {
      const body = JSON.stringify(d.events.map((e) => e.event.id));
      expect(bodies.get(d.webhookId) ?? body, `webhook-id ${d.webhookId}`).to.equal(body);
      bodies.set(d.webhookId, body);
    }
  });

  it('a 429 with Retry-After: the next attempt waits at least that long, whatever the back-off', async () => {
    const secret = whsec();
    const receiver = await startReceiver(secret, () => 429, { 'retry-after': '120' });
    closers.push(receiver.close);
    const app = await createTestApp(env.pool, 'eventsbusy', { key: stack.app.key, teamId: stack.app.teamId });
    await addDestination(env.pool, app.app.id, 'busy', receiver.url, secret);
    await addDevices(env.pool, app.app.id, 1, { prefix: 'a6' });
    await send(env, app.app, { included_segments: ['All'], contents: { en: 'x' } });
    const row = await waitFor('a refused attempt', async () => (await env.pool.query(`SELECT attempts, last_error, extract(epoch FROM retry_at - clock_timestamp()) AS wait FROM event_destinations WHERE app_id = $1 AND attempts > 0`, [app.app.id])).rows[0]);
    expect(row.last_error).to.equal('HTTP 429');
    expect(Number(row.wait)).to.be.above(100); // the back-off alone is at most 0.4 s here
    expect(receiver.requests).to.have.length(1);
  });

  it('a plain-http destination to a host the operator did not list gets nothing, and says why', async () => {
    const secret = whsec();
    const receiver = await startReceiver(secret);
    closers.push(receiver.close);
    const app = await createTestApp(env.pool, 'eventshttp', { key: stack.app.key, teamId: stack.app.teamId });
    await addDestination(env.pool, app.app.id, 'local', receiver.url.replace('127.0.0.1', 'localhost'), secret); // stored, then the operator's list changed
    await addDevices(env.pool, app.app.id, 2, { prefix: 'a3' });
    const created = await send(env, app.app, { included_segments: ['All'], contents: { en: 'x' } });
    await waitFinal(env.pool, created.body.id);
    const row = await waitFor('a refused attempt', async () => (await env.pool.query('SELECT attempts, last_error FROM event_destinations WHERE app_id = $1 AND attempts > 0', [app.app.id])).rows[0]);
    expect(row.last_error).to.equal(`url ${receiver.url.replace('127.0.0.1', 'localhost')} is plain http: use https, or ask the operator to list localhost in HERALD_EVENT_HTTP_HOSTS`);
    expect(receiver.requests).to.deep.equal([]);
  });

  it("one app's hanging destination does not hold up another app's events", async () => {
    const secretA = whsec();
    const secretB = whsec();
    const hanging = await startReceiver(secretA, () => 'hang');
    const receiverB = await startReceiver(secretB);
    closers.push(hanging.close, receiverB.close);
    const a = await createTestApp(env.pool, 'eventsslow', { key: stack.app.key, teamId: stack.app.teamId });
    const b = await createTestApp(env.pool, 'eventsfast', { key: stack.app.key, teamId: stack.app.teamId });
    await addDestination(env.pool, a.app.id, 'slow', hanging.url, secretA);
    await addDestination(env.pool, b.app.id, 'fast', receiverB.url, secretB);
    await addDevices(env.pool, a.app.id, 5, { prefix: 'a4' });
    await addDevices(env.pool, b.app.id, 5, { prefix: 'a5' });
    const sa = await send(env, a.app, { included_segments: ['All'], contents: { en: 'x' } });
    await waitFor("A's destination holding a request", () => hanging.requests.length > 0);
    const sb = await send(env, b.app, { included_segments: ['All'], contents: { en: 'x' } });
    await waitFinal(env.pool, sa.body.id);
    await waitFinal(env.pool, sb.body.id);
    // B's whole send arrives while A's first request still hangs (its deadline is 90 s away).
    await waitFor("B's events", () => kindsOf(receiverB.accepted).includes('notification.finished'), 20_000);
    expect(kindsOf(receiverB.accepted).filter((k) => k === 'message.push.sent')).to.have.length(5);
    expect(hanging.accepted).to.deep.equal([]);
    expect(hanging.requests).to.have.length(1);
  });
});
