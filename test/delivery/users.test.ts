// The user model where a person sees it (issue 27): tags set by updateUser through the official
// client reach every install of the user at the simulator; include_aliases of a custom label or
// onesignal_id reaches the installs of the users it names; a user erased while a send to it is
// planned but not delivered gets nothing, and the send's counts stay exact (its installs skipped).
import { expect } from 'chai';
import * as OneSignal from '@onesignal/node-onesignal';
import { useTestEnv } from '../env/index.js';
import { addDevices, createTestApp, startDeliveryStack, startTestSender, token, waitFinal, type DeliveryStack } from './fixtures.js';
import { startApnsSim, type ApnsSim } from '../../apns-sim/index.js';
import { startTestApi, type TestApi } from '../support/api-server.js';
import { officialClient } from '../support/onesignal.js';
import { createKey } from '../../core/apps/keys.js';
import { planSend } from '../../core/delivery/planner.js';
import type { Sender } from '../../sender/index.js';

const ios = (t: string) => ({ type: 'iOSPush' as const, token: t });
const user = (body: Partial<OneSignal.User>) => Object.assign(new OneSignal.User(), body);
const notification = (appId: string, body: Partial<OneSignal.Notification>) => Object.assign(new OneSignal.Notification(), { app_id: appId, contents: { en: 'hi' }, ...body });

describe('delivery: users through the official client', () => {
  const env = useTestEnv();

  describe('tags set on a user', () => {
    let stack: DeliveryStack;
    before(async () => {
      stack = await startDeliveryStack(env, 'usertags');
    });
    after(() => stack.close());

    it('reach every install of the user: a filters send goes to exactly those', async () => {
      const app = stack.app.app.id;
      const tokens = [1, 2, 3].map((i) => token('7a', i));
      await stack.client.createUser(app, user({ identity: { external_id: 'rae' }, subscriptions: tokens.map(ios) }));
      await addDevices(stack.api.deps.pool, app, 2, { prefix: '7b', tags: { team: 'blue' } });
      await stack.client.updateUser(app, 'external_id', 'rae', { properties: { tags: { team: 'red' } } });
      const sent = await stack.client.createNotification(notification(app, { filters: [{ field: 'tag', key: 'team', relation: '=', value: 'red' }] }));
      const { final } = await waitFinal(env.pool, Number(sent.id));
      expect(final).to.include({ status: 'approved', sent: 3, failed: 0, skipped: 0 });
      expect(stack.sim.deliveries().map((d) => d.token).sort()).to.deep.equal(tokens);
    });
  });

  describe('include_aliases of any label', () => {
    let stack: DeliveryStack;
    before(async () => {
      stack = await startDeliveryStack(env, 'useralias');
    });
    after(() => stack.close());

    it('reaches the installs of the users the ids name, by a custom label and by onesignal_id; an unknown id is skipped', async () => {
      const app = stack.app.app.id;
      const ann = [token('9a', 1), token('9a', 2)];
      const bob = [token('9b', 1)];
      const other = [token('9c', 1)];
      await stack.client.createUser(app, user({ identity: { crm: 'c-ann' }, subscriptions: ann.map(ios) }));
      const madeBob = await stack.client.createUser(app, user({ identity: { crm: 'c-bob' }, subscriptions: bob.map(ios) }));
      await stack.client.createUser(app, user({ identity: { crm: 'c-other', external_id: 'c-ann' }, subscriptions: other.map(ios) }));
      const sent = await stack.client.createNotification(notification(app, { include_aliases: { crm: ['c-ann', 'c-bob', 'c-nobody'] } }));
      const { final } = await waitFinal(env.pool, Number(sent.id));
      // Counted by id given, as every list send (sender/tally.ts): two ids reached, one skipped.
      expect(final).to.include({ status: 'approved', sent: 2, failed: 0, skipped: 1 });
      expect(stack.sim.deliveries().map((d) => d.token).sort()).to.deep.equal([...ann, ...bob].sort());

      const byId = await stack.client.createNotification(notification(app, { include_aliases: { onesignal_id: [madeBob.identity!.onesignal_id!] } }));
      expect((await waitFinal(env.pool, Number(byId.id))).final).to.include({ status: 'approved', sent: 1, failed: 0, skipped: 0 });
      expect(stack.sim.deliveries().map((d) => d.token).filter((t) => bob.includes(t))).to.have.length(2);
    });
  });

  describe('a user erased between a send\'s plan and its delivery', () => {
    let sim: ApnsSim;
    let api: TestApi;
    let sender: Sender | undefined;
    after(async () => {
      await api?.close();
      await sender?.stop();
      await sim?.close();
    });

    it('gets nothing; the send counts its installs skipped and the rest sent', async () => {
      const made = await createTestApp(env.pool, 'usererase');
      const app = made.app.id;
      sim = await startApnsSim({ keys: [{ keyId: made.key.keyId, teamId: made.teamId, publicKey: made.key.publicKeyPem }] });
      api = await startTestApi(env);
      const { key } = await createKey(env.pool, app);
      const client = officialClient(api.url, key);
      const kept = [token('8a', 1), token('8a', 2)];
      const erased = [token('8b', 1), token('8b', 2), token('8b', 3)];
      await client.createUser(app, user({ identity: { external_id: 'kim' }, properties: { tags: { wave: '1' } }, subscriptions: kept.map(ios) }));
      await client.createUser(app, user({ identity: { external_id: 'lou' }, properties: { tags: { wave: '1' } }, subscriptions: erased.map(ios) }));
      const accepted = await client.createNotification(notification(app, { filters: [{ field: 'tag', key: 'wave', relation: '=', value: '1' }] }));
      const sendId = Number(accepted.id);
      expect((await planSend({ pool: env.pool }, sendId)).kind).to.equal('planned');
      const planned = await env.pool.query('SELECT sum(planned)::int AS n FROM send_chunks WHERE send_id = $1', [sendId]);
      expect(planned.rows[0].n).to.equal(5);

      await client.deleteUser(app, 'external_id', 'lou');
      sender = await startTestSender(env, sim);
      const { final } = await waitFinal(env.pool, sendId);
      expect(final).to.include({ status: 'approved', total_recipients: 5, sent: 2, failed: 0, skipped: 3 });
      expect(sim.deliveries().map((d) => d.token).sort()).to.deep.equal(kept);
    });
  });
});
