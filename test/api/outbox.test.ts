// A send and its created event are recorded in one statement and the event handed to JetStream;
// if the publish fails (the process dies, NATS is down), the outbox row stays and the relay
// publishes it. Work itself is not a bus message: a list send's chunk is recorded with the send,
// a segment send waits for a sender to plan it (docs/delivery.md).
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { startTestApi, useTestApi } from '../support/api-server.js';
import { addDevices, makeApp, type TestApp } from '../support/apps.js';
import { flush } from '../../core/bus/outbox.js';
import type { Bus } from '../../core/bus/jetstream.js';

describe('api: handing work to the bus', () => {
  const env = useTestEnv();
  const api = useTestApi(env);
  let app: TestApp;

  before(async () => {
    app = await makeApp(env.pool);
    await addDevices(env.pool, app.app.id, [{}, {}, {}]);
  });

  const lastCreated = async () => {
    const msg = await env.bus.jsm.streams.getMessage(env.bus.names.eventStream, { last_by_subj: env.bus.names.subject('events.send.created') });
    return { payload: msg!.json<{ sendId: number }>(), msgId: msg!.header.get('Nats-Msg-Id') };
  };
  const outboxCount = async () => (await env.pool.query('SELECT count(*)::int AS n FROM outbox')).rows[0].n as number;
  const chunksOf = async (id: number) => (await env.pool.query('SELECT chunk, planned FROM send_chunks WHERE send_id = $1', [id])).rows;

  it('publishes a send-created event for the controller mirror, with the send id as message id, and leaves no outbox row', async () => {
    const res = await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, included_segments: ['All'] } });
    expect(res.status).to.equal(202);
    const event = await lastCreated();
    expect(event.payload).to.include({ sendId: res.body.id, appId: app.app.id, status: 'queued', broadcast: true, source: 'api' });
    expect(event.msgId).to.equal(`send-created-${res.body.id}`);
    expect(await outboxCount()).to.equal(0);
    expect(await chunksOf(res.body.id), 'a segment send is planned by a sender').to.deep.equal([]);
  });

  it("records a list send's one chunk with the send", async () => {
    const ids = (await env.pool.query('SELECT id FROM subscriptions WHERE app_id = $1', [app.app.id])).rows.map((r) => r.id);
    const res = await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, include_subscription_ids: ids } });
    expect(res.body.status).to.equal('sending');
    expect(await chunksOf(res.body.id)).to.deep.equal([{ chunk: 0, planned: 3 }]);
  });

  it('keeps the event in the outbox when the publish fails, and the relay publishes it once', async () => {
    const downBus = { ...env.bus, publish: async () => { throw new Error('nats: connection closed'); } } as Bus;
    const brokenApi = await startTestApi(env, { bus: downBus });
    try {
      const res = await brokenApi.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, included_segments: ['All'] } });
      expect(res.status, 'the caller is answered even though the bus is down').to.equal(202);
      expect(await outboxCount()).to.equal(1);
      const published = await flush(env.pool, env.bus, { olderThanMs: 0 });
      expect(published).to.equal(1);
      expect((await lastCreated()).payload).to.include({ sendId: res.body.id });
      expect(await outboxCount()).to.equal(0);
      // A second publish of the same event (a relay that crashed after publishing) is dropped by JetStream.
      const before = (await env.bus.jsm.streams.info(env.bus.names.eventStream)).state.messages;
      await env.bus.publish('events.send.created', { sendId: res.body.id }, `send-created-${res.body.id}`);
      expect((await env.bus.jsm.streams.info(env.bus.names.eventStream)).state.messages).to.equal(before);
    } finally {
      await brokenApi.close();
    }
  });

  it('records no chunk for scheduled, empty and draft sends', async () => {
    const scheduled = await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, included_segments: ['All'], send_after: new Date(Date.now() + 3600_000).toISOString() } });
    const empty = await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, include_subscription_ids: [] } });
    for (const res of [scheduled, empty]) {
      expect(res.body.id, JSON.stringify(res.body)).to.be.a('number');
      expect(await chunksOf(res.body.id)).to.deep.equal([]);
    }
    expect(scheduled.body.status).to.equal('scheduled');
  });
});
