// A send and its work are recorded in one transaction and handed to JetStream; if the publish
// fails (the process dies, NATS is down), the outbox row stays and the relay publishes it.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { startTestApi, type TestApi } from '../support/api-server.js';
import { addDevices, makeApp, type TestApp } from '../support/apps.js';
import { flush } from '../../core/bus/outbox.js';
import type { Bus } from '../../core/bus/jetstream.js';

describe('api: handing work to the bus', () => {
  const env = useTestEnv();
  let api: TestApi;
  let app: TestApp;

  before(async () => {
    api = await startTestApi(env);
    app = await makeApp(env.pool);
    await addDevices(env.pool, app.app.id, [{}, {}, {}]);
  });
  after(() => api.close());

  const lastPlanJob = async () => {
    const msg = await env.bus.jsm.streams.getMessage(env.bus.names.workStream, { last_by_subj: env.bus.names.subject('work.plan') });
    return { payload: msg!.json<{ sendId: number }>(), msgId: msg!.header.get('Nats-Msg-Id') };
  };
  const outboxCount = async () => (await env.pool.query('SELECT count(*)::int AS n FROM outbox')).rows[0].n as number;

  it('publishes a plan job with the send id as message id, and leaves no outbox row', async () => {
    const res = await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, included_segments: ['All'] } });
    expect(res.status).to.equal(202);
    const job = await lastPlanJob();
    expect(job.payload).to.deep.equal({ sendId: res.body.id });
    expect(job.msgId).to.equal(`plan-${res.body.id}`);
    expect(await outboxCount()).to.equal(0);
  });

  it('publishes a send-created event for the controller mirror', async () => {
    const res = await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, included_segments: ['All'] } });
    const msg = await env.bus.jsm.streams.getMessage(env.bus.names.eventStream, { last_by_subj: env.bus.names.subject('events.send.created') });
    expect(msg!.json()).to.include({ sendId: res.body.id, appId: app.app.id, status: 'queued', broadcast: true, source: 'api' });
  });

  it('keeps the job in the outbox when the publish fails, and the relay publishes it once', async () => {
    const downBus = { ...env.bus, publish: async () => { throw new Error('nats: connection closed'); } } as Bus;
    const brokenApi = await startTestApi(env, { bus: downBus });
    try {
      const res = await brokenApi.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, included_segments: ['All'] } });
      expect(res.status, 'the caller is answered even though the bus is down').to.equal(202);
      expect(await outboxCount()).to.equal(2); // plan job + created event
      const published = await flush(env.pool, env.bus, { olderThanMs: 0 });
      expect(published).to.equal(2);
      expect((await lastPlanJob()).payload).to.deep.equal({ sendId: res.body.id });
      expect(await outboxCount()).to.equal(0);
      // A second publish of the same job (a relay that crashed after publishing) is dropped by JetStream.
      const before = (await env.bus.jsm.streams.info(env.bus.names.workStream)).state.messages;
      await env.bus.publish('work.plan', { sendId: res.body.id }, `plan-${res.body.id}`);
      expect((await env.bus.jsm.streams.info(env.bus.names.workStream)).state.messages).to.equal(before);
    } finally {
      await brokenApi.close();
    }
  });

  it('publishes nothing for scheduled, empty and draft sends', async () => {
    const before = (await env.bus.jsm.streams.info(env.bus.names.workStream)).state.messages;
    await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, included_segments: ['All'], send_after: new Date(Date.now() + 3600_000).toISOString() } });
    await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, include_subscription_ids: [] } });
    expect((await env.bus.jsm.streams.info(env.bus.names.workStream)).state.messages).to.equal(before);
  });
});
