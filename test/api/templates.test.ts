// OneSignal's template calls (issue 30 point 1), driven through the official client
// @onesignal/node-onesignal with only its base server changed, against the real api and
// PostgreSQL: what each call answers, the send's own rules and sentences on a template's content,
// the limits at their edges, tenancy, the buckets and copyTemplateToApp refused.
import { expect } from 'chai';
import * as OneSignal from '@onesignal/node-onesignal';
import { useTestEnv } from '../env/index.js';
import { startTestApi, useTestApi } from '../support/api-server.js';
import { officialClient, refused } from '../support/onesignal.js';
import { makeApp, type TestApp } from '../support/apps.js';
import { MemoryBucketStore } from '../../core/buckets/memory-store.js';
import { BucketRateLimiter } from '../../api/rate-limit/bucket-limiter.js';
import { createKey } from '../../core/apps/keys.js';
import { TEMPLATE_LIMITS } from '../../core/templates/template-limits.js';
import { LIMITS } from '../../core/validation/limits.js';
import { NO_ORGANISATION_KEY } from '../../api/routes/templates.js';

describe('api: templates through the official client', () => {
  const env = useTestEnv();
  const api = useTestApi(env);
  let app: TestApp;
  let client: OneSignal.DefaultApi;

  const create = (t: TestApp, fields: Record<string, unknown>) => Object.assign(new OneSignal.CreateTemplateRequest(), { app_id: t.app.id, ...fields });
  const update = (fields: Record<string, unknown>) => Object.assign(new OneSignal.UpdateTemplateRequest(), fields);
  const rawCreate = (t: TestApp, fields: Record<string, unknown>) => api.request('POST', '/api/v1/templates', { key: t.key, body: { app_id: t.app.id, ...fields } });
  const sendErrors = async (fields: Record<string, unknown>) => {
    const res = await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, include_subscription_ids: ['00000000-0000-4000-8000-000000000001'], ...fields } });
    expect(res.status).to.equal(422);
    return res.body.errors as string[];
  };

  before(async () => {
    app = await makeApp(env.pool);
    client = officialClient(api.url, app.key);
  });

  it('createTemplate makes a push template; viewTemplate reads it back; a raw call keeps the iOS fields, data, buttons and url', async () => {
    const made = await client.createTemplate(create(app, { name: 'Welcome', contents: { en: 'Hello', fr: 'Bonjour' }, headings: { en: 'Hi' }, subtitle: { en: 'Sub' } }));
    expect(made).to.deep.include({ name: 'Welcome', channel: 'push', content: { contents: { en: 'Hello', fr: 'Bonjour' }, headings: { en: 'Hi' }, subtitle: { en: 'Sub' } } });
    expect(made.id).to.match(/^[0-9a-f-]{36}$/);
    const read = await client.viewTemplate(made.id!, app.app.id);
    expect(read).to.deep.equal(made);
    const ios = { contents: { en: 'x' }, url: 'https://example.com/a', data: { k: 'v' }, buttons: [{ id: 'b', text: 'Open' }], ios_sound: 'ping.aiff', thread_id: 't', ios_interruption_level: 'time_sensitive', mutable_content: true };
    const full = await rawCreate(app, { name: 'Full', ...ios });
    expect(full.status).to.equal(200);
    expect(full.body.content).to.deep.equal(ios);
  });

  it('viewTemplates pages the app\'s templates oldest first, as the client reads them', async () => {
    const t = await makeApp(env.pool);
    const c = officialClient(api.url, t.key);
    for (const name of ['a', 'b', 'c']) await c.createTemplate(create(t, { name, contents: { en: name } }));
    const all = await c.viewTemplates(t.app.id);
    expect(all.templates!.map((x) => x.name)).to.deep.equal(['a', 'b', 'c']);
    const page = await c.viewTemplates(t.app.id, 2, 1);
    expect(page.templates!.map((x) => x.name)).to.deep.equal(['b', 'c']);
    const raw = await api.request('GET', `/api/v1/templates?app_id=${t.app.id}&limit=1&offset=2`, { key: t.key });
    expect(raw.body).to.deep.include({ total_count: 3, offset: 2, limit: 1 });
    expect((await c.viewTemplates(t.app.id, undefined, undefined, 'email')).templates).to.deep.equal([]);
    expect((await refused(c.viewTemplates(t.app.id, TEMPLATE_LIMITS.page_max + 1))).code).to.equal(422);
    expect((await c.viewTemplates(t.app.id, TEMPLATE_LIMITS.page_max)).templates!.length).to.equal(3);
  });

  it('updateTemplate replaces the fields given (null removes one) and checks the result whole; deleteTemplate removes it', async () => {
    const made = await client.createTemplate(create(app, { name: 'Change me', contents: { en: 'one' }, headings: { en: 'h' } }));
    const changed = await client.updateTemplate(made.id!, app.app.id, update({ name: 'Changed', contents: { en: 'two' } }));
    expect(changed).to.deep.include({ name: 'Changed', content: { contents: { en: 'two' }, headings: { en: 'h' } } });
    const raw = await api.request('PATCH', `/api/v1/templates/${made.id}?app_id=${app.app.id}`, { key: app.key, body: { headings: null } });
    expect(raw.body.content).to.deep.equal({ contents: { en: 'two' } });
    const bad = await refused(client.updateTemplate(made.id!, app.app.id, update({ headings: { en: 'h'.repeat(LIMITS.headings + 1) } })));
    expect([bad.code, bad.body.errors]).to.deep.equal([422, await sendErrors({ contents: { en: 'x' }, headings: { en: 'h'.repeat(LIMITS.headings + 1) } })]);
    expect((await client.deleteTemplate(made.id!, app.app.id)).success).to.equal(true);
    expect((await refused(client.viewTemplate(made.id!, app.app.id))).code).to.equal(404);
    expect((await refused(client.deleteTemplate(made.id!, app.app.id))).code).to.equal(404);
    expect((await refused(client.updateTemplate(made.id!, app.app.id, update({ name: 'x' })))).code).to.equal(404);
  });

  it('a template\'s content is checked by the send\'s own rules and sentences; the name at its edges; only a template\'s fields', async () => {
    for (const fields of [{ contents: { en: 'x'.repeat(LIMITS.contents + 1) } }, { contents: {} }, {}]) {
      const refusal = await refused(client.createTemplate(create(app, { name: 'n', ...fields })));
      expect([refusal.code, refusal.body.errors], JSON.stringify(fields)).to.deep.equal([422, await sendErrors(fields)]);
    }
    // Fields the client does not model (url, the iOS fields) go as raw calls.
    for (const fields of [{ contents: { en: 'x' }, url: 'javascript:alert(1)' }, { contents: { en: 'x' }, ios_badgeType: 'Sometimes' }]) {
      const refusal = await rawCreate(app, { name: 'n', ...fields });
      expect([refusal.status, refusal.body.errors], JSON.stringify(fields).slice(0, 80)).to.deep.equal([422, await sendErrors(fields)]);
    }
    expect((await client.createTemplate(create(app, { name: 'longest text', contents: { en: 'x'.repeat(LIMITS.contents) } }))).name).to.equal('longest text');
    expect((await client.createTemplate(create(app, { name: 'n'.repeat(TEMPLATE_LIMITS.name), contents: { en: 'x' } }))).name!.length).to.equal(TEMPLATE_LIMITS.name);
    const long = await refused(client.createTemplate(create(app, { name: 'n'.repeat(TEMPLATE_LIMITS.name + 1), contents: { en: 'x' } })));
    expect([long.code, long.body.errors]).to.deep.equal([422, [`name is longer than ${TEMPLATE_LIMITS.name} characters.`]]);
    expect((await refused(client.createTemplate(create(app, { name: '', contents: { en: 'x' } })))).body.errors).to.deep.equal(['name must be text of at least one character.']);
    const audience = await rawCreate(app, { name: 'n', contents: { en: 'x' }, included_segments: ['Subscribed Users'], ttl: 60 });
    expect(audience.status).to.equal(422);
    expect(audience.body.errors.map((e: string) => e.split(' ')[0])).to.deep.equal(['included_segments', 'ttl']);
    const email = await refused(client.createTemplate(create(app, { name: 'n', contents: { en: 'x' }, is_email: true })));
    expect([email.code, email.body.errors]).to.deep.equal([422, ['isEmail is not served: Herald keeps push templates only.']]);
    const noApp = await api.request('POST', '/api/v1/templates', { key: app.key, body: { name: 'n', contents: { en: 'x' } } });
    expect([noApp.status, noApp.body.errors]).to.deep.equal([422, ["app_id is required: the App ID of the key's app."]]);
  });

  it("Android's fields and the platform flags are kept, checked by the send's own rule (android-options.ts) at its edges, and removed by null", async () => {
    const android = { contents: { en: 'x' }, android_channel_id: 'news', small_icon: 'ic_stat_bell', android_accent_color: 'FF0099CC', android_sound: 'chime', android_group: 'scores', isIos: false };
    const made = await rawCreate(app, { name: 'Android', ...android });
    expect([made.status, made.body.content]).to.deep.equal([200, android]);
    const existing = { contents: { en: 'x' }, existing_android_channel_id: 'c'.repeat(LIMITS.android_text), isAndroid: false, isIos: true };
    const longest = await rawCreate(app, { name: 'Existing channel', ...existing });
    expect([longest.status, longest.body.content]).to.deep.equal([200, existing]);
    const refusals: Record<string, unknown>[] = [
      { contents: { en: 'x' }, small_icon: 'i'.repeat(LIMITS.android_text + 1) },
      { contents: { en: 'x' }, android_group: '' },
      { contents: { en: 'x' }, android_channel_id: 'a', existing_android_channel_id: 'b' },
      { contents: { en: 'x' }, android_accent_color: '#0099CC' },
      { contents: { en: 'x' }, android_accent_color: 'FF0099C' },
      { contents: { en: 'x' }, isIos: false, isAndroid: false },
      { contents: { en: 'x' }, isIos: 'no' },
    ];
    for (const fields of refusals) {
      const refusal = await rawCreate(app, { name: 'n', ...fields });
      expect([refusal.status, refusal.body.errors], JSON.stringify(fields).slice(0, 80)).to.deep.equal([422, await sendErrors(fields)]);
    }
    const patch = (body: Record<string, unknown>) => api.request('PATCH', `/api/v1/templates/${made.body.id}?app_id=${app.app.id}`, { key: app.key, body });
    const removed = await patch({ android_accent_color: null, isIos: null });
    const { android_accent_color: _color, isIos: _flag, ...rest } = android;
    expect([removed.status, removed.body.content]).to.deep.equal([200, rest]);
    // The result is checked whole: a second channel name next to the stored one is the send's sentence.
    const both = await patch({ existing_android_channel_id: 'other' });
    expect([both.status, both.body.errors]).to.deep.equal([422, await sendErrors({ ...rest, existing_android_channel_id: 'other' })]);
  });

  it(`an app keeps at most ${TEMPLATE_LIMITS.per_app} templates: the next is a 422 naming it`, async () => {
    const t = await makeApp(env.pool);
    await env.pool.query(
      `INSERT INTO templates (id, app_id, name, content) SELECT gen_random_uuid(), $1, 't' || i, '{"contents": {"en": "x"}}' FROM generate_series(1, $2) i`,
      [t.app.id, TEMPLATE_LIMITS.per_app - 1],
    );
    const c = officialClient(api.url, t.key);
    expect((await c.createTemplate(create(t, { name: 'the last', contents: { en: 'x' } }))).name).to.equal('the last');
    const over = await refused(c.createTemplate(create(t, { name: 'one too many', contents: { en: 'x' } })));
    expect([over.code, over.body.errors]).to.deep.equal([422, [`This app has ${TEMPLATE_LIMITS.per_app} templates, the most it may have; delete one to make another.`]]);
  });

  it("tenancy: another app's key naming this app is a 403 (as the segment calls); another app's template id is a 404 and unchanged", async () => {
    const other = await makeApp(env.pool);
    const otherClient = officialClient(api.url, other.key);
    const theirs = await otherClient.createTemplate(create(other, { name: 'Theirs', contents: { en: 'theirs' } }));
    const mine = await client.createTemplate(create(app, { name: 'Mine', contents: { en: 'mine' } }));
    expect((await refused(client.viewTemplate(theirs.id!, app.app.id))).code).to.equal(404);
    expect((await refused(client.updateTemplate(theirs.id!, app.app.id, update({ name: 'x' })))).code).to.equal(404);
    expect((await refused(client.deleteTemplate(theirs.id!, app.app.id))).code).to.equal(404);
    expect((await refused(otherClient.viewTemplate(mine.id!, app.app.id))).code).to.equal(403);
    expect((await refused(otherClient.viewTemplates(app.app.id))).code).to.equal(403);
    expect((await refused(otherClient.updateTemplate(mine.id!, app.app.id, update({ name: 'x' })))).code).to.equal(403);
    expect((await refused(otherClient.deleteTemplate(mine.id!, app.app.id))).code).to.equal(403);
    expect((await refused(otherClient.createTemplate(create(app, { name: 'x', contents: { en: 'x' } })))).code).to.equal(403);
    expect((await client.viewTemplate(mine.id!, app.app.id)).name).to.equal('Mine');
    expect((await otherClient.viewTemplate(theirs.id!, other.app.id)).name).to.equal('Theirs');
    expect((await otherClient.viewTemplates(other.app.id)).templates!.map((x) => x.name)).to.deep.equal(['Theirs']);
  });

  it('copyTemplateToApp is a 403 saying it needs an organisation key Herald does not have', async () => {
    const made = await client.createTemplate(create(app, { name: 'Copy me', contents: { en: 'x' } }));
    // The client sends its organisation key (none set here: no Authorization header) or none.
    const copy = await refused(client.copyTemplateToApp(made.id!, app.app.id, Object.assign(new OneSignal.CopyTemplateRequest(), { target_app_id: app.app.id })));
    expect([copy.code, copy.body.errors]).to.deep.equal([403, [NO_ORGANISATION_KEY]]);
  });

  it('changes draw the users bucket and reads the read bucket, named in RateLimit-Policy; a read-only key may not change', async () => {
    const limited = await startTestApi(env, { rateLimiter: new BucketRateLimiter(new MemoryBucketStore(), 'templates-test:') });
    try {
      const made = await limited.request('POST', '/api/v1/templates', { key: app.key, body: { app_id: app.app.id, name: 'Bucketed', contents: { en: 'x' } } });
      expect([made.status, made.headers.get('ratelimit-policy')?.includes('name="users"')]).to.deep.equal([200, true]);
      const list = await limited.request('GET', `/api/v1/templates?app_id=${app.app.id}`, { key: app.key });
      expect(list.headers.get('ratelimit-policy')).to.contain('name="read"');
      const one = await limited.request('GET', `/api/v1/templates/${made.body.id}?app_id=${app.app.id}`, { key: app.key });
      expect(one.headers.get('ratelimit-policy')).to.contain('name="read"');
      const changed = await limited.request('PATCH', `/api/v1/templates/${made.body.id}?app_id=${app.app.id}`, { key: app.key, body: { name: 'B' } });
      expect(changed.headers.get('ratelimit-policy')).to.contain('name="users"');
      const { key: readKey } = await createKey(env.pool, app.app.id, { scope: 'read' });
      expect((await limited.request('POST', '/api/v1/templates', { key: readKey, body: { app_id: app.app.id, name: 'R', contents: { en: 'x' } } })).status).to.equal(403);
      expect((await limited.request('GET', `/api/v1/templates/${made.body.id}?app_id=${app.app.id}`, { key: readKey })).status).to.equal(200);
      const del = await limited.request('DELETE', `/api/v1/templates/${made.body.id}?app_id=${app.app.id}`, { key: app.key });
      expect([del.status, del.headers.get('ratelimit-policy')?.includes('name="users"')]).to.deep.equal([200, true]);
    } finally {
      await limited.close();
    }
  });
});
