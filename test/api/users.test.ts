// OneSignal's user and alias calls (issue 27), driven through the official client
// @onesignal/node-onesignal with only its base server changed, against the real api and
// PostgreSQL: what each call answers, what getUser and a send's estimate then see, the limits at
// their edges (422 naming the field), the app-facing installs as users of their own, and tenancy.
import { expect } from 'chai';
import * as OneSignal from '@onesignal/node-onesignal';
import { useTestEnv } from '../env/index.js';
import { startTestApi, useTestApi } from '../support/api-server.js';
import { officialClient, refused } from '../support/onesignal.js';
import { makeApp, type TestApp } from '../support/apps.js';
import { createKey } from '../../core/apps/keys.js';
import { MemoryBucketStore } from '../../core/buckets/memory-store.js';
import { BucketRateLimiter } from '../../api/rate-limit/bucket-limiter.js';
import { USER_LIMITS } from '../../core/users/user-limits.js';
import { importSubscriptions } from '../../core/users/import-installs.js';
import { inUserTransaction } from '../../core/users/transaction.js';
import { Readable } from 'node:stream';

describe('api: users and aliases through the official client', () => {
  const env = useTestEnv();
  const api = useTestApi(env);
  let app: TestApp;
  let client: OneSignal.DefaultApi;
  let n = 0;
  const hex = (i: number) => i.toString(16).padStart(64, '0');
  const nextToken = () => hex(0x5e000 + ++n);

  const clientFor = (key: string) => officialClient(api.url, key);
  const user = (body: Partial<OneSignal.User>) => Object.assign(new OneSignal.User(), body);
  const ios = (token: string, extra: Partial<OneSignal.Subscription> = {}) => ({ type: 'iOSPush' as const, token, ...extra });
  const estimate = async (body: Record<string, unknown>) =>
    (await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, ...body } })).body.estimate as number;

  before(async () => {
    app = await makeApp(env.pool);
    client = clientFor(app.key);
  });

  it('createUser makes a user with aliases, properties and installs (201); getUser finds it by every label', async () => {
    const tokens = [nextToken(), nextToken()];
    const made = await client.createUser(app.app.id, user({
      identity: { external_id: 'ann', crm: 'c-1' },
      properties: { tags: { plan: 'gold', level: 3 as unknown as string }, language: 'fr', timezone_id: 'Europe/Paris' },
      subscriptions: tokens.map((t) => ios(t)),
    }));
    const id = made.identity!.onesignal_id;
    expect(id).to.match(/^[0-9a-f-]{36}$/);
    expect(made.identity).to.deep.equal({ onesignal_id: id, external_id: 'ann', crm: 'c-1' });
    expect(made.properties).to.deep.include({ tags: { plan: 'gold', level: '3' }, language: 'fr', timezone_id: 'Europe/Paris' });
    expect(made.subscriptions!.map((s) => [s.type, s.token, s.enabled])).to.deep.equal(tokens.map((t) => ['iOSPush', t, true]));
    for (const [label, value] of [['onesignal_id', id], ['external_id', 'ann'], ['crm', 'c-1']]) {
      const got = await client.getUser(app.app.id, label, value);
      expect(got.identity!.onesignal_id, label).to.equal(id);
      expect(got.subscriptions).to.have.length(2);
    }
    // The installs carry the user's properties: a filters send counts both, a zone's send too.
    expect(await estimate({ filters: [{ field: 'tag', key: 'plan', relation: '=', value: 'gold' }, { field: 'language', relation: '=', value: 'fr' }] })).to.equal(2);
  });

  it('createUser with a known alias adds to that user (200); aliases of two users are a 409 naming them', async () => {
    const first = await client.createUser(app.app.id, user({ identity: { external_id: 'bob' } }));
    const again = await client.createUser(app.app.id, user({ identity: { external_id: 'bob', crm: 'c-2' }, subscriptions: [ios(nextToken())] }));
    expect(again.identity).to.deep.equal({ onesignal_id: first.identity!.onesignal_id, external_id: 'bob', crm: 'c-2' });
    expect(again.subscriptions).to.have.length(1);
    const clash = await refused(client.createUser(app.app.id, user({ identity: { external_id: 'bob', crm: 'c-1' } })));
    expect(clash.code).to.equal(409);
    expect(clash.body.errors[0].meta.conflicting_aliases).to.deep.equal({ external_id: 'bob', crm: 'c-1' });
  });

  it('updateUser sets, changes and removes ("") tags on every install at once; the next send sees them', async () => {
    const made = await client.createUser(app.app.id, user({ identity: { external_id: 'cat' }, subscriptions: [ios(nextToken()), ios(nextToken()), ios(nextToken())] }));
    const tagged = { filters: [{ field: 'tag', key: 'tier', relation: '=', value: 'pro' }] };
    expect(await estimate(tagged)).to.equal(0);
    const set = await client.updateUser(app.app.id, 'external_id', 'cat', { properties: { tags: { tier: 'pro', seen: '1' } } });
    expect(set.properties!.tags).to.deep.equal({ tier: 'pro', seen: '1' });
    expect(await estimate(tagged)).to.equal(3);
    await client.updateUser(app.app.id, 'onesignal_id', made.identity!.onesignal_id!, { properties: { tags: { tier: 'free', seen: '' }, timezone_id: 'Asia/Tokyo' } });
    expect(await estimate(tagged)).to.equal(0);
    expect(await estimate({ filters: [{ field: 'tag', key: 'tier', relation: '=', value: 'free' }] })).to.equal(3);
    const got = await client.getUser(app.app.id, 'external_id', 'cat');
    expect(got.properties).to.deep.include({ tags: { tier: 'free' }, timezone_id: 'Asia/Tokyo' });
    const zones = await env.pool.query('SELECT DISTINCT timezone, tags FROM subscriptions WHERE user_id = $1', [made.identity!.onesignal_id]);
    expect(zones.rows).to.deep.equal([{ timezone: 'Asia/Tokyo', tags: { tier: 'free' } }]);
    expect((await refused(client.updateUser(app.app.id, 'external_id', 'nobody', { properties: { tags: { a: '1' } } }))).code).to.equal(404);
  });

  it('a tag set on a user of 20 installs is in the very next request\'s filters estimate, every time', async () => {
    const full = Array.from({ length: USER_LIMITS.subscriptions }, () => ios(nextToken()));
    await client.createUser(app.app.id, user({ identity: { external_id: 'twenty' }, subscriptions: full }));
    for (let round = 0; round < 5; round++) {
      await client.updateUser(app.app.id, 'external_id', 'twenty', { properties: { tags: { wave: `w${round}` } } });
      expect(await estimate({ filters: [{ field: 'tag', key: 'wave', relation: '=', value: `w${round}` }] }), `round ${round}`).to.equal(USER_LIMITS.subscriptions);
      if (round > 0) expect(await estimate({ filters: [{ field: 'tag', key: 'wave', relation: '=', value: `w${round - 1}` }] })).to.equal(0);
    }
  });

  it('concurrent tag changes of one user all land, and every install ends with the user\'s tags', async () => {
    const made = await client.createUser(app.app.id, user({ identity: { external_id: 'max' }, subscriptions: [1, 2, 3, 4, 5].map(() => ios(nextToken())) }));
    const register = (external_id: string) => api.request('POST', `/api/v1/apps/${app.app.id}/subscriptions`, { body: { token: nextToken(), external_id, tags: { joined: '1' } } });
    await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => client.updateUser(app.app.id, 'external_id', 'max', { properties: { tags: { [`k${i}`]: `${i}` } } })),
      register('max'),
      register('max'),
    ]);
    const max = await client.getUser(app.app.id, 'onesignal_id', made.identity!.onesignal_id!);
    expect(Object.keys(max.properties!.tags!).sort()).to.deep.equal([...Array.from({ length: 20 }, (_, i) => `k${i}`), 'joined'].sort());
    const rows = await env.pool.query('SELECT s.tags = u.tags AS same FROM subscriptions s JOIN users u ON u.id = s.user_id WHERE u.id = $1', [made.identity!.onesignal_id]);
    expect(rows.rows.map((r) => r.same)).to.deep.equal(Array(7).fill(true));
  });

  it('the alias calls add, list and remove aliases, by user and by subscription', async () => {
    const made = await client.createUser(app.app.id, user({ identity: { external_id: 'dan' }, subscriptions: [ios(nextToken())] }));
    const id = made.identity!.onesignal_id!;
    const sub = made.subscriptions![0].id!;
    expect((await client.createAlias(app.app.id, 'external_id', 'dan', { identity: { crm: 'd-1' } })).identity).to.deep.equal({ onesignal_id: id, external_id: 'dan', crm: 'd-1' });
    expect((await client.getAliases(app.app.id, 'crm', 'd-1')).identity).to.deep.equal({ onesignal_id: id, external_id: 'dan', crm: 'd-1' });
    expect((await client.createAliasBySubscription(app.app.id, sub, { identity: { shop: 's-9' } })).identity).to.include({ shop: 's-9', onesignal_id: id });
    expect((await client.getAliasesBySubscription(app.app.id, sub)).identity).to.deep.equal({ onesignal_id: id, external_id: 'dan', crm: 'd-1', shop: 's-9' });
    // Removing the external id takes it off the installs: a send by external id finds no one.
    expect((await client.deleteAlias(app.app.id, 'crm', 'd-1', 'external_id')).identity).to.deep.equal({ onesignal_id: id, crm: 'd-1', shop: 's-9' });
    expect((await env.pool.query('SELECT external_id FROM subscriptions WHERE id = $1', [sub])).rows[0].external_id).to.equal(null);
    expect((await refused(client.getUser(app.app.id, 'external_id', 'dan'))).code).to.equal(404);
    expect((await refused(client.deleteAlias(app.app.id, 'crm', 'd-1', 'onesignal_id'))).code).to.equal(422);
    expect((await refused(client.deleteAlias(app.app.id, 'crm', 'd-1', 'nolabel'))).code).to.equal(404);
    const other = await client.createUser(app.app.id, user({ identity: { external_id: 'dan-2' } }));
    const taken = await refused(client.createAlias(app.app.id, 'onesignal_id', other.identity!.onesignal_id!, { identity: { crm: 'd-1' } }));
    expect(taken.code).to.equal(409);
    expect(taken.body.errors[0]).to.match(/^identity\.crm: d-1 is an alias of another user/);
  });

  it('an install the app registers is a user of its own; an external id joins it to the user that has it', async () => {
    const register = async (body: Record<string, unknown>) => (await api.request('POST', `/api/v1/apps/${app.app.id}/subscriptions`, { body })).body.id as string;
    const lone = await register({ token: nextToken(), tags: { local: 'yes' } });
    const own = (await client.getAliasesBySubscription(app.app.id, lone)).identity!;
    expect(Object.keys(own)).to.deep.equal(['onesignal_id']);
    expect((await client.getUser(app.app.id, 'onesignal_id', own.onesignal_id!)).properties!.tags).to.deep.equal({ local: 'yes' });
    // Login to a known user: the install moves to it and takes its tags.
    await client.createUser(app.app.id, user({ identity: { external_id: 'eve' }, properties: { tags: { vip: '1' } }, subscriptions: [ios(nextToken())] }));
    const joined = await register({ token: nextToken(), external_id: 'eve', tags: { app: '2' } });
    const eve = await client.getUser(app.app.id, 'external_id', 'eve');
    expect(eve.subscriptions!.map((s) => s.id)).to.include(joined);
    expect(eve.properties!.tags).to.deep.equal({ vip: '1', app: '2' });
    expect(await estimate({ filters: [{ field: 'tag', key: 'app', relation: '=', value: '2' }] })).to.equal(2);
    // The app's tag call on one install is the user's: it reaches the user's other install.
    await api.request('PATCH', `/api/v1/apps/${app.app.id}/subscriptions/${joined}`, { body: { tags: { vip: null } } });
    expect(await estimate({ filters: [{ field: 'tag', key: 'vip', relation: 'exists' }, { field: 'tag', key: 'app', relation: '=', value: '2' }] })).to.equal(0);
    // Installs the app registered with an external id before any user call are that user's.
    const legacy = [await register({ token: nextToken(), external_id: 'fay', tags: { a: '1' } }), await register({ token: nextToken(), external_id: 'fay', tags: { b: '2' } })];
    const fay = await client.getUser(app.app.id, 'external_id', 'fay');
    expect(fay.subscriptions!.map((s) => s.id).sort()).to.deep.equal([...legacy].sort());
    expect(fay.properties!.tags).to.deep.equal({ a: '1', b: '2' });
    expect(await estimate({ filters: [{ field: 'tag', key: 'a', relation: '=', value: '1' }, { field: 'tag', key: 'b', relation: '=', value: '2' }] })).to.equal(2);
    // An alias call giving a user that external id takes such installs too, with the user's tags.
    const early = await register({ token: nextToken(), external_id: 'gil', tags: { early: '1' } });
    await client.createUser(app.app.id, user({ identity: { crm: 'g-1' }, properties: { tags: { crm: 'yes' } } }));
    await client.createAlias(app.app.id, 'crm', 'g-1', { identity: { external_id: 'gil' } });
    const gil = await client.getUser(app.app.id, 'crm', 'g-1');
    expect(gil.subscriptions!.map((s) => s.id)).to.deep.equal([early]);
    expect(await estimate({ filters: [{ field: 'tag', key: 'crm', relation: '=', value: 'yes' }] })).to.equal(1);
  });

  it('updateUser of an external id that only installs carry (no user yet) makes the user of them and tags them all', async () => {
    const register = async (token: string) => (await api.request('POST', `/api/v1/apps/${app.app.id}/subscriptions`, { body: { token, external_id: 'loose-1', tags: { own: '1' } } })).body.id as string;
    const ids = [await register(nextToken()), await register(nextToken())];
    const set = await client.updateUser(app.app.id, 'external_id', 'loose-1', { properties: { tags: { synced: 'yes' } } });
    expect(set.properties!.tags).to.deep.equal({ own: '1', synced: 'yes' });
    expect((await client.getUser(app.app.id, 'external_id', 'loose-1')).subscriptions!.map((s) => s.id).sort()).to.deep.equal([...ids].sort());
    expect(await estimate({ filters: [{ field: 'tag', key: 'synced', relation: '=', value: 'yes' }] })).to.equal(2);
    // A third install registered later joins the user at once (its login).
    await register(nextToken());
    await client.updateUser(app.app.id, 'external_id', 'loose-1', { properties: { tags: { synced: 'again' } } });
    expect(await estimate({ filters: [{ field: 'tag', key: 'synced', relation: '=', value: 'again' }] })).to.equal(3);
  });

  it('an import of a user\'s install (herald import) sets its user\'s tags, on all its installs', async () => {
    const tokens = [nextToken(), nextToken()];
    await client.createUser(app.app.id, user({ identity: { external_id: 'ida' }, properties: { tags: { old: '1' } }, subscriptions: tokens.map((t) => ios(t)) }));
    const line = JSON.stringify({ token: tokens[0], external_id: 'someone-else', tags: { imported: 'y' }, language: 'de' });
    const result = await importSubscriptions(env.pool, app.app.id, Readable.from([`${line}\n`]));
    expect(result.accepted).to.equal(1);
    const ida = await client.getUser(app.app.id, 'external_id', 'ida');
    expect(ida.properties).to.deep.include({ tags: { imported: 'y' }, language: 'de' });
    expect(ida.subscriptions).to.have.length(2);
    expect(await estimate({ filters: [{ field: 'tag', key: 'imported', relation: '=', value: 'y' }, { field: 'language', relation: '=', value: 'de' }] })).to.equal(2);
    expect(await estimate({ filters: [{ field: 'tag', key: 'old', relation: 'exists' }] })).to.equal(0);
  });

  it('bounds every body at its edges, with a 422 naming the field', async () => {
    const tags = (count: number, len = 1) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`${i}`.padStart(len, 'k'), 'v']));
    const made = await client.createUser(app.app.id, user({ identity: { external_id: 'edge' }, properties: { tags: tags(USER_LIMITS.tags) } }));
    expect(Object.keys(made.properties!.tags!)).to.have.length(USER_LIMITS.tags);
    const cases: Array<[string, () => Promise<unknown>, RegExp]> = [
      ['tags +1 in a body', () => client.updateUser(app.app.id, 'external_id', 'edge', { properties: { tags: tags(USER_LIMITS.tags + 1) } }), /^properties\.tags has more than 200 entries/],
      ['tags +1 on the user', () => client.updateUser(app.app.id, 'external_id', 'edge', { properties: { tags: { extra: '1' } } }), /^properties\.tags: a user holds at most 200 tags/],
      ['a tag key too long', () => client.updateUser(app.app.id, 'external_id', 'edge', { properties: { tags: { ['k'.repeat(USER_LIMITS.tag + 1)]: '1' } } }), /^properties\.tags has a key that is not a key of 1 to 128/],
      ['a tag value too long', () => client.updateUser(app.app.id, 'external_id', 'edge', { properties: { tags: { k0: 'v'.repeat(USER_LIMITS.tag + 1) } } }), /^properties\.tags\.k0 is longer than 128/],
      ['a time zone no one has', () => client.updateUser(app.app.id, 'external_id', 'edge', { properties: { timezone_id: 'Mars/Olympus' } }), /^properties\.timezone_id must be an IANA time zone such as Europe\/Paris/],
      ['a time zone no one has, at creation', () => client.createUser(app.app.id, user({ properties: { timezone_id: 'Mars/Olympus' } })), /^properties\.timezone_id must be an IANA time zone/],
      ['a property not kept', () => client.updateUser(app.app.id, 'external_id', 'edge', { properties: { country: 'FR' } }), /^properties\.country is not a field Herald keeps/],
      ['a label too long', () => client.createAlias(app.app.id, 'external_id', 'edge', { identity: { ['l'.repeat(USER_LIMITS.label + 1)]: 'x' } }), /^identity has a key that is not an alias label/],
      ['an alias id too long', () => client.createAlias(app.app.id, 'external_id', 'edge', { identity: { crm: 'x'.repeat(USER_LIMITS.alias_id + 1) } }), /^identity\.crm is longer than 128/],
      ['a path id too long', () => client.getUser(app.app.id, 'external_id', 'x'.repeat(USER_LIMITS.alias_id + 1)), /^alias_id is longer than 128/],
      ['a NUL in the path id', () => client.getUser(app.app.id, 'external_id', 'a\u0000b'), /^alias_id contains U\+0000/],
      ['a NUL in the path id of a change', () => client.updateUser(app.app.id, 'crm', '\u0000', { properties: { tags: { a: '1' } } }), /^alias_id contains U\+0000/],
      ['a label to delete that no alias can have', () => client.deleteAlias(app.app.id, 'external_id', 'edge', 'a\u0000'), /^alias_label_to_delete must be a label of letters, digits/],
      ['a subscription too many', () => client.createUser(app.app.id, user({ subscriptions: Array.from({ length: USER_LIMITS.subscriptions + 1 }, () => ios(nextToken())) })), /^subscriptions has more than 20 entries/],
      ['a bad token', () => client.createUser(app.app.id, user({ subscriptions: [ios('zz')] })), /^subscriptions\[0\]\.token/],
      ['an email subscription', () => client.createUser(app.app.id, user({ subscriptions: [{ type: 'Email', token: 'a@b.c' }] })), /^subscriptions\[0\]\.type must be iOSPush or AndroidPush/],
      ['setting the OneSignal id', () => client.createAlias(app.app.id, 'external_id', 'edge', { identity: { onesignal_id: 'x' } }), /^identity\.onesignal_id is the user's own id/],
    ];
    for (const [what, call, message] of cases) {
      const r = await refused(call());
      expect(r.code, what).to.equal(422);
      expect(r.body.errors[0], what).to.match(message);
    }
    // The longest of each is accepted.
    const longestTag = await client.updateUser(app.app.id, 'external_id', 'edge', { properties: { tags: { 0: 'v'.repeat(USER_LIMITS.tag), ['k'.repeat(USER_LIMITS.tag)]: 'x', 1: '' } } });
    expect(longestTag.properties!.tags).to.include({ 0: 'v'.repeat(USER_LIMITS.tag), ['k'.repeat(USER_LIMITS.tag)]: 'x' });
    const longest = { ['l'.repeat(USER_LIMITS.label)]: 'x'.repeat(USER_LIMITS.alias_id) };
    expect((await client.createAlias(app.app.id, 'external_id', 'edge', { identity: longest })).identity).to.include(longest);
    // The longest in characters outside the BMP (two UTF-16 units each): the path names it as the body made it.
    const emoji = '\u{1F600}'.repeat(USER_LIMITS.alias_id);
    const byEmoji = await client.createUser(app.app.id, user({ identity: { moji: emoji } }));
    expect((await client.getUser(app.app.id, 'moji', emoji)).identity).to.deep.equal(byEmoji.identity);
    const emojiOver = await refused(client.getUser(app.app.id, 'moji', `${emoji}\u{1F600}`));
    expect([emojiOver.code, emojiOver.body.errors[0]]).to.deep.equal([422, `alias_id is longer than ${USER_LIMITS.alias_id} characters.`]);
    const full = await client.createUser(app.app.id, user({ subscriptions: Array.from({ length: USER_LIMITS.subscriptions }, () => ios(nextToken())) }));
    expect(full.subscriptions).to.have.length(USER_LIMITS.subscriptions);
    // Aliases: 20 per user (external_id and the long label make 2 already).
    const aliases = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`a${i}`, `id-${i}`]));
    await client.createAlias(app.app.id, 'external_id', 'edge', { identity: aliases(USER_LIMITS.aliases - 2) });
    const over = await refused(client.createAlias(app.app.id, 'external_id', 'edge', { identity: { one_more: 'x' } }));
    expect([over.code, over.body.errors[0]]).to.deep.equal([422, 'identity: a user holds at most 20 aliases; delete one first.']);
  });

  it("one app's key never reads or changes another app's users; a read key only reads", async () => {
    const other = await makeApp(env.pool);
    await client.createUser(app.app.id, user({ identity: { external_id: 'gus' } }));
    const foreign = clientFor(other.key);
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['getUser', () => foreign.getUser(app.app.id, 'external_id', 'gus')],
      ['updateUser', () => foreign.updateUser(app.app.id, 'external_id', 'gus', { properties: { tags: { x: '1' } } })],
      ['deleteUser', () => foreign.deleteUser(app.app.id, 'external_id', 'gus')],
      ['createAlias', () => foreign.createAlias(app.app.id, 'external_id', 'gus', { identity: { crm: 'x' } })],
      ['createUser', () => foreign.createUser(app.app.id, user({ identity: { external_id: 'gus' } }))],
    ];
    for (const [what, call] of calls) expect((await refused(call())).code, what).to.equal(403);
    // Through its own app's path, the other key finds no user of that name.
    expect((await refused(foreign.getUser(other.app.id, 'external_id', 'gus'))).code).to.equal(404);
    expect((await client.getUser(app.app.id, 'external_id', 'gus')).properties!.tags).to.deep.equal({});
    const { key: readKey } = await createKey(env.pool, app.app.id, { scope: 'read' });
    const reader = clientFor(readKey);
    expect((await reader.getAliases(app.app.id, 'external_id', 'gus')).identity).to.include({ external_id: 'gus' });
    expect((await refused(reader.updateUser(app.app.id, 'external_id', 'gus', { properties: { tags: { x: '1' } } }))).code).to.equal(403);
  });

  it('runs a user call again when PostgreSQL ends it as one side of a deadlock', async () => {
    // Two transactions lock two advisory keys in opposite orders: PostgreSQL ends one (40P01) and
    // inUserTransaction runs it again, so both finish; each ran its work once or twice.
    const runs = [0, 0];
    let bothHoldFirst: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => { let n = 0; bothHoldFirst = () => { if (++n === 2) resolve(); }; });
    const side = (i: number, first: number, second: number) => inUserTransaction(env.pool, async (db) => {
      runs[i]++;
      await db.query('SELECT pg_advisory_xact_lock($1)', [first]);
      if (runs[i] === 1) { bothHoldFirst(); await ready; }
      await db.query('SELECT pg_advisory_xact_lock($1)', [second]);
      return i;
    });
    expect(await Promise.all([side(0, 9001, 9002), side(1, 9002, 9001)])).to.deep.equal([0, 1]);
    expect(runs.slice().sort()).to.deep.equal([1, 2]);
    let tries = 0;
    const bug = inUserTransaction(env.pool, async () => { tries++; throw Object.assign(new Error('not a deadlock'), { code: '23505' }); });
    expect(((await bug.then(() => undefined, (e: Error) => e)) as Error).message).to.equal('not a deadlock');
    expect(tries).to.equal(1);
  });

  it('changes draw the users bucket and reads the read bucket, named in RateLimit-Policy', async () => {
    const limited = await startTestApi(env, { rateLimiter: new BucketRateLimiter(new MemoryBucketStore(), 'users-test:') });
    try {
      await client.createUser(app.app.id, user({ identity: { external_id: 'hal' } }));
      const path = `/api/v1/apps/${app.app.id}/users/by/external_id/hal`;
      const change = await limited.request('PATCH', path, { key: app.key, body: { properties: { tags: { a: '1' } } } });
      expect(change.status).to.equal(202);
      expect(change.headers.get('ratelimit-policy')).to.contain('name="users"');
      const read = await limited.request('GET', path, { key: app.key });
      expect(read.headers.get('ratelimit-policy')).to.contain('name="read"');
    } finally {
      await limited.close();
    }
  });
});
