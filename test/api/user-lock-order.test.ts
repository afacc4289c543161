// The app's registrations and the user calls take their locks in one order (issue 27;
// docs/decisions.md "lock order"): run together on one user, many times over, none answers a 500
// and PostgreSQL ends none of them as a deadlock (inUserTransaction counts the runs it repeats),
// and every install ends with its user's tags.
import { expect } from 'chai';
import * as OneSignal from '@onesignal/node-onesignal';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { officialClient } from '../support/onesignal.js';
import { makeApp, type TestApp } from '../support/apps.js';
import { userReruns } from '../../core/users/transaction.js';

const ROUNDS = 40;

describe('api: registrations and user calls never deadlock', () => {
  const env = useTestEnv();
  const api = useTestApi(env);
  let app: TestApp;
  let client: OneSignal.DefaultApi;
  let n = 0;
  const nextToken = () => (0x10c000 + ++n).toString(16).padStart(64, '0');
  const user = (body: Partial<OneSignal.User>) => Object.assign(new OneSignal.User(), body);

  before(async () => {
    app = await makeApp(env.pool);
    client = officialClient(api.url, app.key);
  });

  it(`${ROUNDS} rounds of logins, app tag changes, updateUser, alias and subscription calls on one user: no 500, no deadlock`, async () => {
    const tokens = [nextToken(), nextToken(), nextToken(), nextToken()];
    const made = await client.createUser(app.app.id, user({ identity: { external_id: 'locks' }, subscriptions: tokens.map((token) => ({ type: 'iOSPush', token })) }));
    const ids = made.subscriptions!.map((s) => s.id!);
    const other = await client.createUser(app.app.id, user({ identity: { external_id: 'locks-2' } }));
    const before = userReruns();
    const statuses: number[] = [];
    const call = async (method: string, path: string, body?: unknown, key?: string) => {
      const res = await api.request(method, path, { body, key });
      statuses.push(res.status);
      return res.body;
    };
    const base = `/api/v1/apps/${app.app.id}`;
    for (let round = 0; round < ROUNDS; round++) {
      const [fresh] = await Promise.all([
        // A fresh install logging in to the user (erased after the round: the user holds at most 20).
        call('POST', `${base}/subscriptions`, { token: nextToken(), external_id: 'locks', tags: { fresh: `${round}` } }),
        // The app: logins of the user's installs (its external id), each with a tag, and tag calls by id.
        ...tokens.map((token, i) => call('POST', `${base}/subscriptions`, { token, external_id: 'locks', tags: { [`app${i}`]: `${round}` } })),
        ...ids.map((id, i) => call('PATCH', `${base}/subscriptions/${id}`, { tags: { [`patch${i}`]: `${round}` } })),
        // The backend: the user's tags, an alias, a subscription moved in and out, the aliases by install.
        call('PATCH', `${base}/users/by/external_id/locks`, { properties: { tags: { backend: `${round}` } } }, app.key),
        call('PATCH', `${base}/users/by/onesignal_id/${made.identity!.onesignal_id}/identity`, { identity: { crm: `c-${round}` } }, app.key),
        call('PATCH', `${base}/subscriptions/${ids[round % ids.length]}/user/identity`, { identity: { shop: `s-${round}` } }, app.key),
        call('POST', `${base}/users/by/external_id/locks-2/subscriptions`, { subscription: { type: 'iOSPush', token: tokens[round % tokens.length] } }, app.key),
        call('PATCH', `${base}/subscriptions_by_token/iOSPush/${tokens[(round + 1) % tokens.length]}`, { subscription: { enabled: true } }, app.key),
      ]);
      await client.deleteSubscription(app.app.id, fresh.id);
      // What the round moved to the other user comes back, for the next round's logins to find it here.
      await client.transferSubscription(app.app.id, ids[round % ids.length], Object.assign(new OneSignal.TransferSubscriptionRequestBody(), { identity: { external_id: 'locks' } }));
    }
    const after = userReruns();
    expect(statuses.filter((s) => s >= 500), 'answers of 500 and above').to.deep.equal([]);
    expect(after.deadlock - before.deadlock, 'calls PostgreSQL ended as a deadlock').to.equal(0);
    const rows = await env.pool.query('SELECT s.id, s.tags = u.tags AS same FROM subscriptions s JOIN users u ON u.id = s.user_id WHERE s.app_id = $1', [app.app.id]);
    expect(rows.rows.filter((r) => !r.same)).to.deep.equal([]);
    expect(other.identity!.onesignal_id).to.be.a('string');
  });
});
