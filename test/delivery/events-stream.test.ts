// The apps' events on NATS JetStream (issue 28 point 4, docs/events.md "The stream"): a consumer
// in the test reads the real stream. Every kind a send produces arrives with the body its webhook
// destination receives, on the documented subject with the event's id as Nats-Msg-Id, in the
// same order; a re-publish (a sender killed before it recorded its place) adds nothing; another
// app's events are not under this app's subject; `spec.events.stream` in a manifest opts in.
import { expect } from 'chai';
import { AckPolicy, DeliverPolicy } from '@nats-io/jetstream';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { useTestEnv } from '../env/index.js';
import { addDevices, createTestApp, send, startDeliveryStack, waitFinal, type DeliveryStack } from './fixtures.js';
import { waitFor } from '../support/wait.js';
import { storeDestinations } from '../../core/events/destinations.js';
import { appEventsFilter, STREAM_DESTINATION } from '../../core/events/stream.js';
import { cancelSend } from '../../core/send/cancel.js';
import type { HeraldEvent } from '../../core/events/expand.js';
import { parseManifests } from '../../core/apps/manifest.js';
import { applyApp } from '../../core/apps/file-source.js';

interface StreamMessage {
  subject: string;
  msgId: string | undefined;
  seq: number;
  body: HeraldEvent;
}

const whsec = () => `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

describe('events: the NATS JetStream stream', function () {
  this.timeout(120_000);
  const env = useTestEnv();
  let stack: DeliveryStack;
  let receiver: Server;
  /** Every event the webhook receiver took, in the order received. */
  const hooked: HeraldEvent[] = [];
  const stops: Array<() => unknown> = [];

  before(async () => {
    stack = await startDeliveryStack(
      env,
      'eventsstream',
      { rules: [{ prefix: 'e410', status: 410, timestamp: Date.now() - 3_600_000 }, { prefix: 'bad0', status: 400, reason: 'BadDeviceToken' }] },
      { events: { httpHosts: ['127.0.0.1'], lanes: 2, idleMs: 50, backoff: { baseMs: 100, maxMs: 400 } } },
    );
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c)).on('end', () => {
        hooked.push(...(JSON.parse(body) as HeraldEvent[]));
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  });
  after(async () => {
    for (const stop of stops) await stop();
    await new Promise((r) => receiver?.close(r));
    await stack?.close();
  });

  /** What a consumer of one app reads: an ordered consumer filtered on `<prefix>.events.<app>.>`. */
  async function consume(appId: string): Promise<StreamMessage[]> {
    const seen: StreamMessage[] = [];
    // A durable consumer with one filter subject, as docs/events.md shows (NATS 2.9 and later).
    const stream = env.bus.names.eventStream;
    const durable = `test_${appId.slice(0, 8)}`;
    await env.bus.jsm.consumers.add(stream, { durable_name: durable, filter_subject: env.bus.names.subject(appEventsFilter(appId)), ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All });
    const messages = await (await env.bus.js.consumers.get(stream, durable)).consume();
    stops.push(() => messages.stop());
    void (async () => {
      for await (const m of messages) {
        seen.push({ subject: m.subject, msgId: m.headers?.get('Nats-Msg-Id'), seq: m.seq, body: m.json<HeraldEvent>() });
        m.ack();
      }
    })();
    return seen;
  }

  /** Messages the stream holds on the app's subjects (not what a consumer happened to read). */
  async function stored(appId: string): Promise<number> {
    const info = await env.bus.jsm.streams.info(env.bus.names.eventStream, { subjects_filter: env.bus.names.subject(appEventsFilter(appId)) });
    return Object.values(info.state.subjects ?? {}).reduce((n, c) => n + c, 0);
  }

  const place = async (appId: string) =>
    (await env.pool.query('SELECT delivered_through::text AS t, delivered_offset AS o FROM event_destinations WHERE app_id = $1 AND name = $2', [appId, STREAM_DESTINATION])).rows[0];
  const lastRecord = async (appId: string) => (await env.pool.query('SELECT max(id)::text AS m FROM event_records WHERE app_id = $1', [appId])).rows[0].m as string;

  it('every kind a send produces arrives on its subject with the webhook body, the event id as Nats-Msg-Id, in the same order; a re-publish adds nothing', async () => {
    const { app } = stack.app;
    await storeDestinations(env.pool, app.id, [{ name: 'hook', url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`, secretRef: { name: 'x', key: 'x' }, secret: whsec() }], { stream: true });
    const seen = await consume(app.id);
    await addDevices(env.pool, app.id, 3, { prefix: 'a0', externalIdPrefix: 'user-' });
    await addDevices(env.pool, app.id, 1, { prefix: 'e410' });
    await addDevices(env.pool, app.id, 1, { prefix: 'bad0' });
    // Registered before Apple found the e410 token invalid, so it is unsubscribed.
    await env.pool.query(`UPDATE subscriptions SET created_at = now() - interval '1 day' WHERE app_id = $1`, [app.id]);
    const sent = await send(env, app, { included_segments: ['All'], contents: { en: 'hi' } });
    await waitFinal(env.pool, sent.body.id);
    const later = await send(env, app, { included_segments: ['All'], contents: { en: 'later' }, send_after: new Date(Date.now() + 3_600_000).toISOString() });
    expect((await cancelSend(env.pool, app.id, later.body.id)).kind).to.equal('canceled');

    const total = 2 /* created, finished */ + 3 /* sent */ + 2 * 2 /* 410 and BadDeviceToken: failed, unsubscribed */ + 3 /* created, canceled, finished */;
    await waitFor('every event on the stream and at the webhook', () => seen.length >= total && hooked.length >= total);
    expect(seen).to.have.length(total);
    expect(new Set(seen.map((m) => m.body.event.kind))).to.deep.equal(new Set([
      'notification.created', 'message.push.sent', 'message.push.failed', 'subscription.push.unsubscribed', 'notification.finished', 'notification.canceled',
    ]));
    // The same events, in the same order, with the same bodies as the webhook's.
    expect(seen.map((m) => m.body)).to.deep.equal(hooked);
    for (const m of seen) {
      expect(m.subject).to.equal(`${env.streamPrefix.toLowerCase()}.events.${app.id}.${m.body.event.kind}`);
      expect(m.msgId).to.equal(m.body.event.id);
    }
    expect(seen.find((m) => m.body.event.kind === 'subscription.push.unsubscribed')!.body.event.data).to.include({ reason: 'Unregistered' });

    // A sender killed after publishing, before it recorded its place: the next lane publishes the
    // same events again, and JetStream drops every one of them (same Nats-Msg-Id in the window).
    const end = await place(app.id);
    expect(end.t).to.equal(await lastRecord(app.id));
    await env.pool.query('UPDATE event_destinations SET delivered_through = 0, delivered_offset = 0 WHERE app_id = $1 AND name = $2', [app.id, STREAM_DESTINATION]);
    await waitFor('the stream past every record again', async () => (await place(app.id)).t === end.t);
    expect(await stored(app.id)).to.equal(total);
    const one = await send(env, app, { include_subscription_ids: [seen.find((m) => m.body.event.kind === 'message.push.sent')!.body.subscription!.id], contents: { en: 'one more' } });
    await waitFinal(env.pool, one.body.id);
    await waitFor('the next send on the stream', () => seen.some((m) => m.body.event.kind === 'notification.finished' && m.body.message?.id === String(one.body.id)));
    expect(seen).to.have.length(total + 3); // created, sent, finished: nothing of before again
    expect(new Set(seen.map((m) => m.msgId)).size).to.equal(seen.length);
    await storeDestinations(env.pool, app.id, []);
  });

  it("another app's events are on its own subjects, never under this app's", async () => {
    const mine = await createTestApp(env.pool, 'streammine', { key: stack.app.key, teamId: stack.app.teamId });
    const other = await createTestApp(env.pool, 'streamother', { key: stack.app.key, teamId: stack.app.teamId });
    for (const a of [mine, other]) await storeDestinations(env.pool, a.app.id, [], { stream: true });
    const mineSeen = await consume(mine.app.id);
    const otherSeen = await consume(other.app.id);
    await addDevices(env.pool, mine.app.id, 2, { prefix: 'a1' });
    await addDevices(env.pool, other.app.id, 600, { prefix: 'a2' }); // two chunks
    const a = await send(env, other.app, { included_segments: ['All'], contents: { en: 'theirs' } });
    const b = await send(env, mine.app, { included_segments: ['All'], contents: { en: 'mine' } });
    await waitFinal(env.pool, a.body.id);
    await waitFinal(env.pool, b.body.id);
    await waitFor("both apps' events on the stream", () => mineSeen.length >= 4 && otherSeen.length >= 602);
    expect(mineSeen.map((m) => m.body.event.kind)).to.deep.equal(['notification.created', 'message.push.sent', 'message.push.sent', 'notification.finished']);
    expect(mineSeen.every((m) => m.body.event.app_id === mine.app.id && m.subject.includes(`.events.${mine.app.id}.`))).to.equal(true);
    expect(otherSeen).to.have.length(602);
    expect(otherSeen.every((m) => m.body.event.app_id === other.app.id)).to.equal(true);
    expect(await stored(mine.app.id)).to.equal(4);
    // Order per app: the stream's sequence follows the app's record order (created first, finished last).
    expect(otherSeen.map((m) => m.seq)).to.deep.equal([...otherSeen.map((m) => m.seq)].sort((x, y) => x - y));
    expect(otherSeen[0].body.event.kind).to.equal('notification.created');
    expect(otherSeen[601].body.event.kind).to.equal('notification.finished');
  });

  it('spec.events.stream in a manifest opts the app in; applied again without it, out', async () => {
    const manifest = (stream: unknown) => `apiVersion: herald.dev/v1alpha1
kind: App
metadata: {name: streamed}
spec:
  bundleId: com.example.streamed
  events: {stream: ${JSON.stringify(stream)}}
`;
    const apply = async (stream: unknown) => applyApp(env.pool, parseManifests(manifest(stream)).apps[0], new Map());
    const { app } = await apply(true);
    expect((await env.pool.query('SELECT name, url FROM event_destinations WHERE app_id = $1', [app.id])).rows).to.deep.equal([{ name: STREAM_DESTINATION, url: 'nats:jetstream' }]);
    await apply(false);
    expect((await env.pool.query('SELECT name FROM event_destinations WHERE app_id = $1', [app.id])).rows).to.deep.equal([]);
    expect(() => parseManifests(manifest('yes'))).to.throw('spec.events.stream must be true or false');
  });
});
