// The official client's createSubscription, transferSubscription and updateSubscriptionByToken
// (issue 27), against the real api and PostgreSQL: each accepted body changes what it names (read
// back through getUser, a send's estimate and the keyed install read), a body it cannot apply is a
// 4xx naming the field, a user holds at most 20 subscriptions (the 20th accepted, the 21st a 409),
// and one app's key neither finds nor changes another app's installs.
import { expect } from 'chai';
import * as OneSignal from '@onesignal/node-onesignal';
import { useTestEnv } from '../env/index.js';
import { startTestApi, useTestApi } from '../support/api-server.js';
import { officialClient, refused } from '../support/onesignal.js';
import { makeApp, type TestApp } from '../support/apps.js';
import { USER_LIMITS } from '../../core/users/user-limits.js';
import { MemoryBucketStore } from '../../core/buckets/memory-store.js';
import { BucketRateLimiter } from '../../api/rate-limit/bucket-limiter.js';

describe('api: the subscription calls of a user through the official client', () => {
  const env = useTestEnv();
  const api = useTestApi(env);
  let app: TestApp;
  let client: OneSignal.DefaultApi;
  let n = 0;
  const nextToken = () => (0x7a000 + ++n).toString(16).padStart(64, '0');
  const user = (body: Partial<OneSignal.User>) => Object.assign(new OneSignal.User(), body);
  const ios = (token: string, extra: Partial<OneSignal.Subscription> = {}) => ({ type: 'iOSPush' as const, token, ...extra });
  const wrapped = (subscription: Record<string, unknown>) => Object.assign(new OneSignal.SubscriptionBody(), { subscription });
  const to = (identity: Record<string, string>) => Object.assign(new OneSignal.TransferSubscriptionRequestBody(), { identity });
  const read = async (id: string) => (await api.request('GET', `/api/v1/apps/${app.app.id}/subscriptions/${id}`, { key: app.key })).body;
  const estimate = async (key: string, value: string) =>
    (await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, filters: [{ field: 'tag', key, relation: '=', value }] } })).body.estimate as number;

  before(async () => {
    app = await makeApp(env.pool);
    client = officialClient(api.url, app.key);
  });

  it('createSubscription adds an install to the user (201), which carries its tags; a token the app has moves to it (200)', async () => {
    await client.createUser(app.app.id, user({ identity: { external_id: 'kim' }, properties: { tags: { plan: 'kim' } } }));
    const token = nextToken();
    const made = await client.createSubscription(app.app.id, 'external_id', 'kim', wrapped(ios(token, { enabled: true, test_type: 1 })));
    expect(made.subscription).to.deep.include({ type: 'iOSPush', token, enabled: true, test_type: 1 });
    expect(await read(made.subscription!.id!)).to.include({ external_id: 'kim', environment: 'sandbox', subscribed: true });
    expect(await estimate('plan', 'kim')).to.equal(1);

    // A token the app registered anonymously: its own user, with nothing else, goes with it.
    const lone = (await api.request('POST', `/api/v1/apps/${app.app.id}/subscriptions`, { body: { token: nextToken(), tags: { plan: 'solo' } } })).body.id as string;
    const anonymous = (await client.getAliasesBySubscription(app.app.id, lone)).identity!.onesignal_id!;
    const res = await api.request('POST', `/api/v1/apps/${app.app.id}/users/by/external_id/kim/subscriptions`, { key: app.key, body: { subscription: { type: 'iOSPush', token: (await read(lone)).token, enabled: false } } });
    expect([res.status, res.body.subscription.id, res.body.subscription.enabled]).to.deep.equal([200, lone, false]);
    expect((await client.getUser(app.app.id, 'external_id', 'kim')).subscriptions!.map((s) => s.id)).to.have.members([made.subscription!.id, lone]);
    expect(await read(lone)).to.include({ external_id: 'kim', subscribed: false });
    expect((await read(lone)).tags).to.deep.equal({ plan: 'kim' });
    expect((await refused(client.getUser(app.app.id, 'onesignal_id', anonymous))).code).to.equal(404);
  });

  it('createSubscription refuses what it cannot apply, naming the field; an unknown user is a 404', async () => {
    await client.createUser(app.app.id, user({ identity: { external_id: 'lee' } }));
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ type: 'iOSPush', token: nextToken(), device_model: 'iPhone15,2' }, 422, 'subscription.device_model is not a field Herald keeps (docs/api.md "Users").'],
      [{ type: 'Email', token: nextToken() }, 422, 'subscription.type must be iOSPush or AndroidPush: Herald delivers to iOS and Android installs only.'],
      [{ type: 'iOSPush', token: 'zz' }, 422, 'subscription.token must be the APNs device token in hex, 8 to 200 digits (0-9, a-f).'],
      [{ type: 'iOSPush', token: nextToken(), test_type: 7 }, 422, "subscription.test_type must be 1 (development build), 2 (ad hoc build) or null (the App's environment)."],
      [{ type: 'iOSPush' }, 422, 'subscription.token is required.'],
    ];
    for (const [body, code, message] of cases) {
      const res = await api.request('POST', `/api/v1/apps/${app.app.id}/users/by/external_id/lee/subscriptions`, { key: app.key, body: { subscription: body } });
      expect([res.status, res.body.errors[0]], JSON.stringify(body)).to.deep.equal([code, message]);
    }
    expect((await client.getUser(app.app.id, 'external_id', 'lee')).subscriptions).to.deep.equal([]);
    expect((await refused(client.createSubscription(app.app.id, 'external_id', 'nobody', wrapped(ios(nextToken()))))).code).to.equal(404);
  });

  it('a user holds 20 subscriptions: the 20th is added, the 21st (created or transferred) is a 409 that changes nothing', async () => {
    const first = Array.from({ length: USER_LIMITS.subscriptions - 1 }, () => ios(nextToken()));
    await client.createUser(app.app.id, user({ identity: { external_id: 'max20' }, subscriptions: first }));
    const twentieth = await client.createSubscription(app.app.id, 'external_id', 'max20', wrapped(ios(nextToken())));
    expect(twentieth.subscription!.id).to.be.a('string');
    const extra = nextToken();
    const over = await refused(client.createSubscription(app.app.id, 'external_id', 'max20', wrapped(ios(extra))));
    expect([over.code, over.body.errors[0]]).to.deep.equal([409, 'subscription: the user already holds 20 subscriptions, the most a user holds; delete or transfer one of them first.']);
    expect((await env.pool.query('SELECT count(*)::int AS n FROM subscriptions WHERE app_id = $1 AND token = $2', [app.app.id, extra])).rows[0].n).to.equal(0);

    const other = await client.createUser(app.app.id, user({ identity: { external_id: 'other20' }, subscriptions: [ios(nextToken())] }));
    const moving = other.subscriptions![0].id!;
    const moved = await refused(client.transferSubscription(app.app.id, moving, to({ external_id: 'max20' })));
    expect([moved.code, moved.body.errors[0]]).to.deep.equal([409, 'identity: the user already holds 20 subscriptions, the most a user holds; delete or transfer one of them first.']);
    expect((await client.getUser(app.app.id, 'external_id', 'other20')).subscriptions!.map((s) => s.id)).to.deep.equal([moving]);
    expect((await client.getUser(app.app.id, 'external_id', 'max20')).subscriptions).to.have.length(USER_LIMITS.subscriptions);
  });

  it('the app registers at most 20 installs with an external id no user has yet: the 21st is a 409, so the user they make holds 20', async () => {
    const register = (token: string) => api.request('POST', `/api/v1/apps/${app.app.id}/subscriptions`, { body: { token, external_id: 'crowd' } });
    for (let i = 0; i < USER_LIMITS.subscriptions; i++) expect((await register(nextToken())).status).to.be.oneOf([200, 201]);
    const extra = nextToken();
    const over = await register(extra);
    expect([over.status, over.body.errors[0]]).to.deep.equal([409, 'external_id: the user crowd already holds 20 subscriptions; delete one of them first.']);
    expect((await env.pool.query('SELECT count(*)::int AS n FROM subscriptions WHERE app_id = $1 AND token = $2', [app.app.id, extra])).rows[0].n).to.equal(0);
    expect((await client.getUser(app.app.id, 'external_id', 'crowd')).subscriptions).to.have.length(USER_LIMITS.subscriptions);
  });

  it('createAlias of an external id the app registered installs with is a 409 when they would make the user hold more than 20', async () => {
    const twenty = Array.from({ length: USER_LIMITS.subscriptions }, () => ios(nextToken()));
    const full = await client.createUser(app.app.id, user({ identity: { crm: 'full20' }, subscriptions: twenty }));
    // The app registers an install with an external id no user has yet.
    const loose = await api.request('POST', `/api/v1/apps/${app.app.id}/subscriptions`, { body: { token: nextToken(), external_id: 'joins-full20' } });
    expect(loose.status).to.be.oneOf([200, 201]);
    const body = Object.assign(new OneSignal.UserIdentityBody(), { identity: { external_id: 'joins-full20' } });
    const over = await refused(client.createAlias(app.app.id, 'crm', 'full20', body));
    expect([over.code, over.body.errors[0]]).to.deep.equal([409, 'identity: the user already holds 20 subscriptions, the most a user holds; delete or transfer one of them first.']);
    expect((await client.getUser(app.app.id, 'onesignal_id', full.identity!.onesignal_id!)).subscriptions).to.have.length(USER_LIMITS.subscriptions);
    expect((await read(loose.body.id)).external_id).to.equal('joins-full20');
  });

  it('transferSubscription moves an install to the user one alias names; it takes that user\'s tags, the old user keeps its aliases', async () => {
    const from = await client.createUser(app.app.id, user({ identity: { external_id: 'ned' }, properties: { tags: { who: 'ned' } }, subscriptions: [ios(nextToken()), ios(nextToken())] }));
    const target = await client.createUser(app.app.id, user({ identity: { external_id: 'ola', crm: 'o-1' }, properties: { tags: { who: 'ola' } } }));
    const install = from.subscriptions![0].id!;
    const answer = await client.transferSubscription(app.app.id, install, to({ crm: 'o-1' }));
    expect(answer.identity).to.deep.equal({ onesignal_id: target.identity!.onesignal_id, external_id: 'ola', crm: 'o-1' });
    expect(await read(install)).to.include({ external_id: 'ola' });
    expect(await estimate('who', 'ola')).to.equal(1);
    expect(await estimate('who', 'ned')).to.equal(1);
    expect((await client.getUser(app.app.id, 'external_id', 'ned')).subscriptions!.map((s) => s.id)).to.deep.equal([from.subscriptions![1].id]);
    // By onesignal_id, and back: the same install again (a move to its own user changes nothing).
    await client.transferSubscription(app.app.id, install, to({ onesignal_id: from.identity!.onesignal_id! }));
    expect(await read(install)).to.include({ external_id: 'ned' });
    await client.transferSubscription(app.app.id, install, to({ onesignal_id: from.identity!.onesignal_id! }));
    expect((await client.getUser(app.app.id, 'external_id', 'ned')).subscriptions).to.have.length(2);

    const cases: Array<[string, Record<string, unknown>, number, string]> = [
      [install, { identity: { external_id: 'ola', crm: 'o-1' } }, 422, 'identity has more than 1 entry.'],
      [install, { identity: {} }, 422, 'identity names no alias.'],
      [install, {}, 422, 'identity is required.'],
      [install, { identity: { external_id: 'nobody' } }, 404, 'No such user.'],
      ['00000000-0000-4000-8000-000000000000', { identity: { external_id: 'ola' } }, 404, 'No such subscription.'],
      ['not-a-uuid', { identity: { external_id: 'ola' } }, 404, 'No such subscription.'],
    ];
    for (const [id, body, code, message] of cases) {
      const res = await api.request('PATCH', `/api/v1/apps/${app.app.id}/subscriptions/${id}/owner`, { key: app.key, body });
      expect([res.status, res.body.errors[0]], JSON.stringify(body)).to.deep.equal([code, message]);
    }
  });

  it('updateSubscriptionByToken changes enabled and test_type of the install with that token, and refuses the rest by name', async () => {
    const token = nextToken();
    const made = await client.createUser(app.app.id, user({ identity: { external_id: 'pat' }, subscriptions: [ios(token)] }));
    const id = made.subscriptions![0].id!;
    await client.updateSubscriptionByToken(app.app.id, 'iOSPush', token, wrapped({ enabled: false }));
    expect(await read(id)).to.include({ subscribed: false, unsubscribed_reason: 'app' });
    const res = await api.request('PATCH', `/api/v1/apps/${app.app.id}/subscriptions_by_token/iOSPush/${token.toUpperCase()}`, { key: app.key, body: { subscription: { enabled: true, test_type: 1 } } });
    expect([res.status, res.body]).to.deep.equal([202, { id }]);
    expect(await read(id)).to.include({ subscribed: true, environment: 'sandbox', token });

    const cases: Array<[string, string, Record<string, unknown>, number, string]> = [
      ['iOSPush', token, { subscription: { token: nextToken() } }, 422, "subscription.token cannot be changed by token: the path's token and type name the install (change a token with updateSubscription)."],
      ['iOSPush', token, { subscription: { type: 'AndroidPush', enabled: false } }, 422, "subscription.type cannot be changed by token: the path's token and type name the install (change a token with updateSubscription)."],
      ['iOSPush', token, { subscription: { device_model: 'x' } }, 422, 'subscription.device_model is not a field Herald can change on an install (it keeps type, token, enabled and test_type).'],
      ['iOSPush', token, { subscription: {} }, 422, 'subscription names no field to change.'],
      ['AndroidPush', token, { subscription: { enabled: false } }, 404, 'No such subscription.'],
      ['SMS', token, { subscription: { enabled: false } }, 422, 'token_type must be iOSPush or AndroidPush: Herald delivers to iOS and Android installs only.'],
      ['iOSPush', 'xyz', { subscription: { enabled: false } }, 422, 'token must be the APNs device token in hex, 8 to 200 digits (0-9, a-f).'],
      ['iOSPush', nextToken(), { subscription: { enabled: false } }, 404, 'No such subscription.'],
    ];
    for (const [type, t, body, code, message] of cases) {
      const r = await api.request('PATCH', `/api/v1/apps/${app.app.id}/subscriptions_by_token/${type}/${t}`, { key: app.key, body });
      expect([r.status, r.body.errors[0]], `${type} ${JSON.stringify(body)}`).to.deep.equal([code, message]);
    }
    expect(await read(id)).to.include({ subscribed: true, environment: 'sandbox', token });
  });

  it("another app's key finds none of this app's users or installs (404), and cannot name this app (403)", async () => {
    const token = nextToken();
    const made = await client.createUser(app.app.id, user({ identity: { external_id: 'quinn' }, subscriptions: [ios(token)] }));
    const id = made.subscriptions![0].id!;
    const other = await makeApp(env.pool);
    const foreign = officialClient(api.url, other.key);
    await foreign.createUser(other.app.id, user({ identity: { external_id: 'rae' } }));
    const own: Array<[string, () => Promise<unknown>]> = [
      ['createSubscription', () => foreign.createSubscription(other.app.id, 'external_id', 'quinn', wrapped(ios(nextToken())))],
      ['transferSubscription', () => foreign.transferSubscription(other.app.id, id, to({ external_id: 'rae' }))],
      ['updateSubscriptionByToken', () => foreign.updateSubscriptionByToken(other.app.id, 'iOSPush', token, wrapped({ enabled: false }))],
    ];
    for (const [what, call] of own) expect((await refused(call())).code, what).to.equal(404);
    const named: Array<[string, () => Promise<unknown>]> = [
      ['createSubscription', () => foreign.createSubscription(app.app.id, 'external_id', 'quinn', wrapped(ios(nextToken())))],
      ['transferSubscription', () => foreign.transferSubscription(app.app.id, id, to({ external_id: 'quinn' }))],
      ['updateSubscriptionByToken', () => foreign.updateSubscriptionByToken(app.app.id, 'iOSPush', token, wrapped({ enabled: false }))],
    ];
    for (const [what, call] of named) expect((await refused(call())).code, what).to.equal(403);
    expect(await read(id)).to.include({ subscribed: true, external_id: 'quinn' });
    expect((await client.getUser(app.app.id, 'external_id', 'quinn')).subscriptions).to.have.length(1);
  });

  it('each call draws the users bucket, named in RateLimit-Policy', async () => {
    const limited = await startTestApi(env, { rateLimiter: new BucketRateLimiter(new MemoryBucketStore(), 'user-subs-test:') });
    try {
      const token = nextToken();
      const made = await client.createUser(app.app.id, user({ identity: { external_id: 'sam' }, subscriptions: [ios(token)] }));
      await client.createUser(app.app.id, user({ identity: { external_id: 'sue' } }));
      const calls: Array<[string, string, Record<string, unknown>, number]> = [
        ['POST', `/api/v1/apps/${app.app.id}/users/by/external_id/sam/subscriptions`, { subscription: { type: 'iOSPush', token: nextToken() } }, 201],
        ['PATCH', `/api/v1/apps/${app.app.id}/subscriptions/${made.subscriptions![0].id}/owner`, { identity: { external_id: 'sue' } }, 200],
        ['PATCH', `/api/v1/apps/${app.app.id}/subscriptions_by_token/iOSPush/${token}`, { subscription: { enabled: false } }, 202],
      ];
      for (const [method, path, body, status] of calls) {
        const res = await limited.request(method, path, { key: app.key, body });
        expect([res.status, res.headers.get('ratelimit-policy')], path).to.satisfy(([s, p]: [number, string]) => s === status && p.includes('name="users"'));
      }
    } finally {
      await limited.close();
    }
  });
});
