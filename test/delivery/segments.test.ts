// Segments made through the API where a person sees them (issue 27 point 3): a send to one reaches
// exactly its installs at the simulator; a send that names one deleted after it was accepted ends
// a draft saying so, whether it was scheduled (firing) or waiting to be planned, and never jams
// the sends behind it.
import { expect } from 'chai';
import * as OneSignal from '@onesignal/node-onesignal';
import { useTestEnv } from '../env/index.js';
import { addDevices, createTestApp, startDeliveryStack, waitFinal, type DeliveryStack } from './fixtures.js';
import { startTestApi, type TestApi } from '../support/api-server.js';
import { officialClient } from '../support/onesignal.js';
import { createKey } from '../../core/apps/keys.js';
import { fireDueSends } from '../../core/send/fire-due.js';
import { planNext } from '../../core/delivery/planner.js';

const segment = (name: string, filters: Record<string, unknown>[]) => Object.assign(new OneSignal.Segment(), { name, filters });
const notification = (appId: string, body: Partial<OneSignal.Notification>) => Object.assign(new OneSignal.Notification(), { app_id: appId, contents: { en: 'hi' }, ...body });

describe('delivery: segments made through the API', () => {
  const env = useTestEnv();
  const row = async (id: number) => (await env.pool.query('SELECT status, message, sent FROM sends WHERE id = $1', [id])).rows[0];

  describe('with a sender', () => {
    let stack: DeliveryStack;
    before(async () => {
      stack = await startDeliveryStack(env, 'apisegments');
    });
    after(() => stack.close());

    it('a send to a segment made by createSegment reaches exactly its installs', async () => {
      const app = stack.app.app.id;
      const vip = await addDevices(env.pool, app, 3, { prefix: '9a', tags: { tier: 'vip' }, language: 'en' });
      const frenchVip = await addDevices(env.pool, app, 1, { prefix: '9c', tags: { tier: 'vip' }, language: 'fr' });
      await addDevices(env.pool, app, 2, { prefix: '9b', tags: { tier: 'basic' }, language: 'en' });
      await stack.client.createSegment(app, segment('VIPs', [{ field: 'tag', key: 'tier', relation: '=', value: 'vip' }]));
      await stack.client.createSegment(app, segment('French', [{ field: 'language', relation: '=', value: 'fr' }]));
      const sent = await stack.client.createNotification(notification(app, { included_segments: ['VIPs'], excluded_segments: ['French'] }));
      const { final } = await waitFinal(env.pool, Number(sent.id));
      expect(final).to.include({ status: 'approved', sent: 3, failed: 0 });
      expect(stack.sim.deliveries().map((d) => d.token).sort()).to.deep.equal(vip.sort());
      expect(frenchVip).to.have.length(1);
    });

    it('a scheduled send whose segment is deleted before it fires ends a draft naming the segment', async () => {
      const app = stack.app.app.id;
      await stack.client.createSegment(app, segment('Later', [{ field: 'tag', key: 'tier', relation: 'exists' }]));
      const scheduled = await stack.client.createNotification(notification(app, { included_segments: ['Later'], send_after: new Date(Date.now() + 3_600_000).toISOString() }));
      const id = Number(scheduled.id);
      expect((await row(id)).status).to.equal('scheduled');
      const { segments } = await stack.client.getSegments(app);
      await stack.client.deleteSegment(app, segments!.find((s) => s.name === 'Later')!.id!);
      await env.pool.query(`UPDATE sends SET send_after = now() - interval '1 second' WHERE id = $1`, [id]);
      const before = stack.sim.deliveries().length;
      await fireDueSends({ pool: env.pool }); // the stack's scheduler may fire it first: either way it ends so
      expect(await row(id)).to.deep.equal({ status: 'draft', sent: 0, message: `Not sent at its scheduled time: segment Later is not defined for app ${stack.app.app.name}.` });
      expect(stack.sim.deliveries().length).to.equal(before);
    });
  });

  describe('without a sender', () => {
    let api: TestApi;
    after(() => api?.close());

    it('a send accepted before its segment was deleted ends a draft when it is planned', async () => {
      const made = await createTestApp(env.pool, 'apisegments-plan');
      const app = made.app.id;
      api = await startTestApi(env);
      const { key } = await createKey(env.pool, app);
      const client = officialClient(api.url, key);
      await addDevices(env.pool, app, 2, { prefix: '9d', tags: { gone: '1' } });
      const created = await client.createSegment(app, segment('Gone', [{ field: 'tag', key: 'gone', relation: '=', value: '1' }]));
      const accepted = await client.createNotification(notification(app, { included_segments: ['Gone'] }));
      expect(Number(accepted.id)).to.be.above(0);
      await client.deleteSegment(app, created.id!);
      const planned = await planNext(env.pool);
      expect(planned?.sendId).to.equal(Number(accepted.id));
      expect(planned?.outcome.kind).to.equal('failed');
      expect(await row(Number(accepted.id))).to.deep.equal({ status: 'draft', sent: 0, message: `Not sent: it could not be planned (segment Gone is not defined for app ${made.app.name}).` });
      // A later send to a segment of that name is refused at once.
      const again = await api.request('POST', '/api/v1/notifications', { key, body: { app_id: app, contents: { en: 'x' }, included_segments: ['Gone'] } });
      expect([again.status, again.body.errors]).to.deep.equal([422, ['Unknown segment "Gone". Use Subscribed Users, Active Users, Inactive Users or a segment defined for this app.']]);
    });
  });
});
