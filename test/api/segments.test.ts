// OneSignal's segment calls (issue 27 point 3), driven through the official client
// @onesignal/node-onesignal with only its base server changed, against the real api and
// PostgreSQL: what each call answers, what a send's estimate then counts (the same condition
// language as `filters`), the App resource's segments listed read-only and refused with a 409,
// a send naming a deleted segment refused with a 422 naming it, the limits at their edges, tenancy
// and the buckets.
import { expect } from 'chai';
import * as OneSignal from '@onesignal/node-onesignal';
import { useTestEnv } from '../env/index.js';
import { startTestApi, useTestApi } from '../support/api-server.js';
import { officialClient, refused } from '../support/onesignal.js';
import { addDevices, makeApp, type TestApp } from '../support/apps.js';
import { MemoryBucketStore } from '../../core/buckets/memory-store.js';
import { BucketRateLimiter } from '../../api/rate-limit/bucket-limiter.js';
import { createKey } from '../../core/apps/keys.js';
import { upsertApp } from '../../core/apps/app-store.js';
import { SEGMENT_LIMITS } from '../../core/segments/segment-limits.js';

describe('api: segments through the official client', () => {
  const env = useTestEnv();
  const api = useTestApi(env);
  let app: TestApp;
  let client: OneSignal.DefaultApi;

  const segment = (name: string, filters: OneSignal.FilterExpression[]) => Object.assign(new OneSignal.Segment(), { name, filters });
  const tag = (key: string, relation: string, value?: string) => ({ field: 'tag', key, relation, ...(value === undefined ? {} : { value }) }) as OneSignal.FilterExpression;
  const send = (t: TestApp, body: Record<string, unknown>) =>
    api.request('POST', '/api/v1/notifications', { key: t.key, body: { app_id: t.app.id, contents: { en: 'x' }, ...body } });
  const estimate = async (body: Record<string, unknown>) => {
    const res = await send(app, body);
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    return res.body.estimate as number;
  };

  const estimateOf = async (t: TestApp, name: string) => {
    const res = await send(t, { included_segments: [name] });
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    return res.body.estimate as number;
  };

  before(async () => {
    app = await makeApp(env.pool, { segments: [{ name: 'Gold', conditions: [{ key: 'plan', relation: '=', value: 'gold' }] }] });
    client = officialClient(api.url, app.key);
    await addDevices(env.pool, app.app.id, [
      { tags: { plan: 'gold' }, language: 'en' },
      { tags: { plan: 'gold' }, language: 'fr' },
      { tags: { plan: 'free' }, language: 'fr' },
      { tags: { plan: 'free', beta: '1' }, language: 'de' },
      { language: 'fr', subscribed: false },
    ]);
  });

  it('createSegment (201) makes a segment of the filters language; sends, estimates and getSegment count exactly its installs', async () => {
    // French installs, or any with the beta tag: 3 subscribed.
    const made = await client.createSegment(app.app.id, segment('French or beta', [
      { field: 'language', relation: '=', value: 'fr' } as OneSignal.FilterExpression,
      { operator: 'OR' } as OneSignal.FilterExpression,
      tag('beta', 'exists'),
    ]));
    expect(made.success).to.equal(true);
    expect(made.id).to.match(/^[0-9a-f-]{36}$/);
    expect(await estimate({ included_segments: ['French or beta'] })).to.equal(3);
    // As the same conditions given as a send's filters.
    expect(await estimate({ filters: [{ field: 'language', relation: '=', value: 'fr' }, { operator: 'OR' }, { field: 'tag', key: 'beta', relation: 'exists' }] })).to.equal(3);
    expect(await estimate({ included_segments: ['Subscribed Users'], excluded_segments: ['French or beta'] })).to.equal(1);
    const got = await client.getSegment(app.app.id, made.id!);
    expect(got.subscriber_count).to.equal(3);
    expect(got.payload).to.deep.include({ id: made.id, name: 'French or beta', source: 'custom' });
    expect(got.payload!.filters!.map((f) => [f.field, f.relation, f.value ?? f.key ?? f.operator])).to.deep.equal([['language', '=', 'fr'], [undefined, undefined, 'OR'], ['tag', 'exists', 'beta']]);
    const raw = await api.request('GET', `/api/v1/apps/${app.app.id}/segments/${made.id}`, { key: app.key });
    expect(raw.body.payload).to.include({ read_only: false, herald_source: 'api' });
  });

  it('getSegments lists built-in, App resource and API segments, saying where each comes from, paged by offset and limit', async () => {
    const all = await client.getSegments(app.app.id);
    const names = all.segments!.map((s) => [s.name, s.read_only]);
    expect(names.slice(0, 4)).to.deep.equal([['Subscribed Users', true], ['Active Users', true], ['Inactive Users', true], ['Gold', true]]);
    expect(all.total_count).to.equal(all.segments!.length);
    expect(all).to.include({ offset: 0, limit: SEGMENT_LIMITS.page_max });
    const raw = await api.request('GET', `/api/v1/apps/${app.app.id}/segments?offset=3&limit=1`, { key: app.key });
    expect(raw.status).to.equal(200);
    expect(raw.body).to.include({ total_count: all.total_count, offset: 3, limit: 1 });
    expect(raw.body.segments).to.have.length(1);
    expect(raw.body.segments[0]).to.include({ name: 'Gold', read_only: true, herald_source: 'app_resource', app_resource: app.app.name, app_id: app.app.id });
    const paged = await client.getSegments(app.app.id, 1, 2);
    expect(paged.segments!.map((s) => s.name)).to.deep.equal(['Active Users', 'Inactive Users']);
    // The App resource's segment by its id, counted through the same lookup as a send.
    const gold = await client.getSegment(app.app.id, raw.body.segments[0].id);
    expect(gold.subscriber_count).to.equal(await estimate({ included_segments: ['Gold'] }));
    expect(gold.subscriber_count).to.equal(2);
    for (const [query, field] of [['limit=0', 'limit'], [`limit=${SEGMENT_LIMITS.page_max + 1}`, 'limit'], ['offset=-1', 'offset'], ['offset=x', 'offset']]) {
      const bad = await api.request('GET', `/api/v1/apps/${app.app.id}/segments?${query}`, { key: app.key });
      expect(bad.status, query).to.equal(422);
      expect(bad.body.errors[0], query).to.match(new RegExp(`^${field} must be`));
    }
    expect((await api.request('GET', `/api/v1/apps/${app.app.id}/segments?limit=${SEGMENT_LIMITS.page_max}`, { key: app.key })).status).to.equal(200);
  });

  it('updateSegment (200) changes the filters and the name; the next send sees the change', async () => {
    const made = await client.createSegment(app.app.id, segment('Germans', [{ field: 'language', relation: '=', value: 'de' } as OneSignal.FilterExpression]));
    expect(await estimate({ included_segments: ['Germans'] })).to.equal(1);
    const changed = await client.updateSegment(app.app.id, made.id!, Object.assign(new OneSignal.UpdateSegmentRequest(), { name: 'Free', filters: [tag('plan', '=', 'free')] }));
    expect(changed).to.deep.equal(Object.assign(new OneSignal.UpdateSegmentSuccessResponse(), { success: true, id: made.id }));
    expect(await estimate({ included_segments: ['Free'] })).to.equal(2);
    const old = await send(app, { included_segments: ['Germans'] });
    expect(old.status).to.equal(422);
    // A rename alone keeps the filters.
    await client.updateSegment(app.app.id, made.id!, Object.assign(new OneSignal.UpdateSegmentRequest(), { name: 'Free plan' }));
    expect(await estimate({ included_segments: ['Free plan'] })).to.equal(2);
  });

  it('deleteSegment (200): getSegment is then a 404, and a send naming it a 422 naming it, as included or excluded', async () => {
    const made = await client.createSegment(app.app.id, segment('Doomed', [tag('plan', 'exists')]));
    expect(await client.deleteSegment(app.app.id, made.id!)).to.deep.include({ success: true });
    expect((await refused(client.getSegment(app.app.id, made.id!))).code).to.equal(404);
    expect((await refused(client.deleteSegment(app.app.id, made.id!))).code).to.equal(404);
    const included = await send(app, { included_segments: ['Doomed'] });
    expect(included.status).to.equal(422);
    expect(included.body.errors).to.deep.equal(['Unknown segment "Doomed". Use Subscribed Users, Active Users, Inactive Users or a segment defined for this app.']);
    const excluded = await send(app, { included_segments: ['Subscribed Users'], excluded_segments: ['Doomed'] });
    expect(excluded.status).to.equal(422);
    expect(excluded.body.errors[0]).to.contain('"Doomed"');
  });

  it('an App resource segment is read-only: changing or deleting it is a 409 naming the App; its name and built-in names are refused with a 409', async () => {
    const listed = await client.getSegments(app.app.id);
    const gold = listed.segments!.find((s) => s.name === 'Gold')!;
    const subscribed = listed.segments!.find((s) => s.name === 'Subscribed Users')!;
    const change = await refused(client.updateSegment(app.app.id, gold.id!, Object.assign(new OneSignal.UpdateSegmentRequest(), { name: 'Gold', filters: [tag('plan', 'exists')] })));
    expect(change.code).to.equal(409);
    expect(JSON.stringify(change.body)).to.contain(`comes from the App resource ${app.app.name} (spec.segments)`);
    const del = await refused(client.deleteSegment(app.app.id, gold.id!));
    expect(del.code).to.equal(409);
    expect(JSON.stringify(del.body)).to.contain(`App resource ${app.app.name}`);
    expect((await refused(client.deleteSegment(app.app.id, subscribed.id!))).code).to.equal(409);
    const clash = await refused(client.createSegment(app.app.id, segment('Gold', [tag('plan', 'exists')])));
    expect(clash.code).to.equal(409);
    expect(clash.body.errors).to.deep.equal([`Segment name "Gold" is defined by the App resource ${app.app.name} (spec.segments); choose another name.`]);
    for (const name of ['Subscribed Users', 'All']) {
      const builtIn = await refused(client.createSegment(app.app.id, segment(name, [tag('plan', 'exists')])));
      expect(builtIn.code, name).to.equal(409);
    }
    const first = await client.createSegment(app.app.id, segment('Twice', [tag('plan', 'exists')]));
    const twice = await refused(client.createSegment(app.app.id, segment('Twice', [tag('beta', 'exists')])));
    expect(twice.code).to.equal(409);
    expect(twice.body.errors).to.deep.equal([`Segment name "Twice" is taken by segment ${first.id} of this app; choose another name.`]);
    // Renaming another API segment onto it, or onto the App's name: the same 409.
    const other = await client.createSegment(app.app.id, segment('Other', [tag('plan', 'exists')]));
    expect((await refused(client.updateSegment(app.app.id, other.id!, Object.assign(new OneSignal.UpdateSegmentRequest(), { name: 'Twice' })))).code).to.equal(409);
    expect((await refused(client.updateSegment(app.app.id, other.id!, Object.assign(new OneSignal.UpdateSegmentRequest(), { name: 'Gold' })))).code).to.equal(409);
  });

  it('a name the App resource adds later shadows the API segment of that name: sends reach the App\'s, the API one is listed shadowed', async () => {
    const t = await makeApp(env.pool, { segments: [] });
    const c = officialClient(api.url, t.key);
    await addDevices(env.pool, t.app.id, [{ tags: { a: '1' } }, { tags: { b: '1' } }, { tags: { b: '1' } }]);
    const made = await c.createSegment(t.app.id, segment('Shared', [tag('a', 'exists')]));
    expect(await estimateOf(t, 'Shared')).to.equal(1);
    await upsertApp(env.pool, { name: t.app.name, bundleId: t.app.bundleId, segments: [{ name: 'Shared', conditions: [{ key: 'b', relation: 'exists' }] }] });
    expect(await estimateOf(t, 'Shared')).to.equal(2);
    const listed = (await api.request('GET', `/api/v1/apps/${t.app.id}/segments`, { key: t.key })).body.segments.filter((s: { name: string }) => s.name === 'Shared');
    expect(listed.map((s: Record<string, unknown>) => [s.herald_source, s.shadowed ?? false, s.is_active])).to.deep.equal([['app_resource', false, true], ['api', true, false]]);
    expect((await c.getSegment(t.app.id, made.id!)).subscriber_count).to.equal(0);
    // Renamed, it reaches its own installs again.
    await c.updateSegment(t.app.id, made.id!, Object.assign(new OneSignal.UpdateSegmentRequest(), { name: 'Mine again' }));
    expect(await estimateOf(t, 'Mine again')).to.equal(1);
  });

  it('bodies are bounded: a 422 names the field, at each limit\'s edge; the filters rules are the send\'s own', async () => {
    const t = await makeApp(env.pool);
    const c = officialClient(api.url, t.key);
    const longest = 'n'.repeat(SEGMENT_LIMITS.name);
    expect((await c.createSegment(t.app.id, segment(longest, [tag('a', 'exists')]))).success).to.equal(true);
    const tooLong = await refused(c.createSegment(t.app.id, segment(`${longest}x`, [tag('a', 'exists')])));
    expect([tooLong.code, tooLong.body.errors]).to.deep.equal([422, [`name is longer than ${SEGMENT_LIMITS.name} characters.`]]);
    const many = (n: number) => Array.from({ length: n }, (_, i) => (i % 2 ? { operator: 'OR' } : tag(`k${i}`, 'exists')) as OneSignal.FilterExpression);
    expect((await c.createSegment(t.app.id, segment('most', many(SEGMENT_LIMITS.filter_entries - 1)))).success).to.equal(true);
    const over = await refused(c.createSegment(t.app.id, segment('over', many(SEGMENT_LIMITS.filter_entries + 1))));
    expect([over.code, over.body.errors]).to.deep.equal([422, [`filters holds 1 to ${SEGMENT_LIMITS.filter_entries} entries.`]]);
    const none = await refused(c.createSegment(t.app.id, segment('none', [])));
    expect([none.code, none.body.errors]).to.deep.equal([422, [`filters holds 1 to ${SEGMENT_LIMITS.filter_entries} entries.`]]);
    // The one validator of the condition language: the same sentences as a send's filters.
    const bad = await refused(c.createSegment(t.app.id, segment('bad', [{ field: 'tag', key: 'a', relation: 'time_elapsed_gt', value: '1' } as OneSignal.FilterExpression, { operator: 'OR' } as OneSignal.FilterExpression, tag('b', 'exists')])));
    const asSend = await send(t, { filters: [{ field: 'tag', key: 'a', relation: 'time_elapsed_gt', value: '1' }, { operator: 'OR' }, { field: 'tag', key: 'b', relation: 'exists' }] });
    expect(bad.code).to.equal(422);
    expect(bad.body.errors).to.deep.equal(asSend.body.errors);
    expect(bad.body.errors[0]).to.match(/^filters\[0\]\.relation must be one of/);
    const described = await api.request('POST', `/api/v1/apps/${t.app.id}/segments`, { key: t.key, body: { name: 'd', filters: [tag('a', 'exists')], description: 'x' } });
    expect([described.status, described.body.errors]).to.deep.equal([422, ['description is not a field of a segment Herald keeps (docs/api.md "Segments").']]);
    const noName = await api.request('POST', `/api/v1/apps/${t.app.id}/segments`, { key: t.key, body: { filters: [tag('a', 'exists')] } });
    expect([noName.status, noName.body.errors]).to.deep.equal([422, ['name is required.']]);
    // The id, when given, is a UUID in either case (core/formats/uuid.ts); one character short is not.
    const upper = 'A1B2C3D4-0000-4000-8000-00000000000F';
    const made = await api.request('POST', `/api/v1/apps/${t.app.id}/segments`, { key: t.key, body: { id: upper, name: 'upper', filters: [tag('a', 'exists')] } });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    const short = await api.request('POST', `/api/v1/apps/${t.app.id}/segments`, { key: t.key, body: { id: upper.slice(1), name: 'short', filters: [tag('a', 'exists')] } });
    expect([short.status, short.body.errors]).to.deep.equal([422, ['id must be a UUID.']]);
  });

  it(`an app makes at most ${SEGMENT_LIMITS.per_app} segments through the API: the next is a 422 naming it`, async () => {
    const t = await makeApp(env.pool, { segments: [{ name: 'Resource', conditions: [] }] });
    const values = Array.from({ length: SEGMENT_LIMITS.per_app }, (_, i) => `('00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}'::uuid, $1::uuid, 'seg ${i}', '[]'::jsonb, '[[]]'::jsonb)`);
    // All but one written directly (fast); the last through the call, then one too many.
    await env.pool.query(`INSERT INTO segments (id, app_id, name, filters, groups) VALUES ${values.slice(1).join(', ')}`, [t.app.id]);
    const c = officialClient(api.url, t.key);
    expect((await c.createSegment(t.app.id, segment('the last', [tag('a', 'exists')]))).success).to.equal(true);
    const over = await refused(c.createSegment(t.app.id, segment('one too many', [tag('a', 'exists')])));
    expect([over.code, over.body.errors]).to.deep.equal([422, [`This app has ${SEGMENT_LIMITS.per_app} segments made through the API, the most it may have; delete one to make another.`]]);
  });

  it('tenancy: another app\'s segment id is a 404 under this app; another app\'s key on this app is a 403 and changes nothing', async () => {
    const other = await makeApp(env.pool);
    const otherClient = officialClient(api.url, other.key);
    const theirs = await otherClient.createSegment(other.app.id, segment('Theirs', [tag('plan', 'exists')]));
    const mine = await client.createSegment(app.app.id, segment('Mine', [tag('plan', 'exists')]));
    expect((await refused(client.getSegment(app.app.id, theirs.id!))).code).to.equal(404);
    expect((await refused(client.deleteSegment(app.app.id, theirs.id!))).code).to.equal(404);
    expect((await refused(client.updateSegment(app.app.id, theirs.id!, Object.assign(new OneSignal.UpdateSegmentRequest(), { name: 'x' })))).code).to.equal(404);
    expect((await refused(otherClient.getSegment(app.app.id, mine.id!))).code).to.equal(403);
    expect((await refused(otherClient.deleteSegment(app.app.id, mine.id!))).code).to.equal(403);
    expect((await refused(otherClient.getSegments(app.app.id))).code).to.equal(403);
    // A send of the other app cannot name this app's segment.
    expect((await send(other, { included_segments: ['Mine'] })).status).to.equal(422);
    expect((await client.getSegment(app.app.id, mine.id!)).payload!.name).to.equal('Mine');
    expect((await otherClient.getSegment(other.app.id, theirs.id!)).payload!.name).to.equal('Theirs');
  });

  it('changes draw the users bucket and reads the read bucket, named in RateLimit-Policy; a read-only key may not change', async () => {
    const limited = await startTestApi(env, { rateLimiter: new BucketRateLimiter(new MemoryBucketStore(), 'segments-test:') });
    try {
      const path = `/api/v1/apps/${app.app.id}/segments`;
      const made = await limited.request('POST', path, { key: app.key, body: { name: 'Bucketed', filters: [tag('plan', 'exists')] } });
      expect(made.status).to.equal(201);
      expect(made.headers.get('ratelimit-policy')).to.contain('name="users"');
      const read = await limited.request('GET', path, { key: app.key });
      expect(read.headers.get('ratelimit-policy')).to.contain('name="read"');
      const one = await limited.request('GET', `${path}/${made.body.id}`, { key: app.key });
      expect(one.headers.get('ratelimit-policy')).to.contain('name="read"');
      const del = await limited.request('DELETE', `${path}/${made.body.id}`, { key: app.key });
      expect([del.status, del.headers.get('ratelimit-policy')?.includes('name="users"')]).to.deep.equal([200, true]);
      const { key: readKey } = await createKey(env.pool, app.app.id, { scope: 'read' });
      const readOnly = await limited.request('POST', path, { key: readKey, body: { name: 'Read only', filters: [tag('plan', 'exists')] } });
      expect(readOnly.status).to.equal(403);
      expect((await limited.request('GET', path, { key: readKey })).status).to.equal(200);
    } finally {
      await limited.close();
    }
  });
});
