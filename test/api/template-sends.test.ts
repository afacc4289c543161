// A send naming template_id (issue 30 point 1), through the official client against the real api
// and PostgreSQL: the template's fields fill the body, the send's own taking precedence; a missing,
// malformed or other app's template is a 422 naming template_id; an idempotent repeat replays its
// first answer after the template changed or was deleted, and the recorded send keeps what it was
// sent with.
// Delivery to the simulator in each device's language: test/delivery/templates.test.ts.
import { expect } from 'chai';
import * as OneSignal from '@onesignal/node-onesignal';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { officialClient, refused } from '../support/onesignal.js';
import { addDevices, makeApp, type TestApp } from '../support/apps.js';
import { CONTENTS_REQUIRED } from '../../core/validation/send-schema.js';
import { unknownTemplate } from '../../core/templates/apply-template.js';

describe('api: sends with template_id through the official client', () => {
  const env = useTestEnv();
  const api = useTestApi(env);
  let app: TestApp;
  let client: OneSignal.DefaultApi;
  let templateId: string;

  const notification = (fields: Record<string, unknown>) => Object.assign(new OneSignal.Notification(), { app_id: app.app.id, included_segments: ['Subscribed Users'], ...fields });
  const report = async (id: string) => (await api.request('GET', `/api/v1/notifications/${id}`, { key: app.key })).body;

  before(async () => {
    app = await makeApp(env.pool);
    client = officialClient(api.url, app.key);
    await addDevices(env.pool, app.app.id, [{ language: 'en' }, { language: 'fr' }]);
    const made = await client.createTemplate(Object.assign(new OneSignal.CreateTemplateRequest(), { app_id: app.app.id, name: 'Promo', contents: { en: 'From the template', fr: 'Du modèle' }, headings: { en: 'Template title' } }));
    templateId = made.id!;
  });

  it('sends the template\'s content when the body gives none', async () => {
    const sent = await client.createNotification(notification({ template_id: templateId }));
    const r = await report(String(sent.id));
    expect([r.contents, r.headings]).to.deep.equal([{ en: 'From the template', fr: 'Du modèle' }, { en: 'Template title' }]);
  });

  it("the send's own fields take precedence, each field whole (contents is not merged per language)", async () => {
    const sent = await client.createNotification(notification({ template_id: templateId, contents: { de: 'Eigener Text' } }));
    const r = await report(String(sent.id));
    expect([r.contents, r.headings]).to.deep.equal([{ de: 'Eigener Text' }, { en: 'Template title' }]);
  });

  it("a template's Android fields and platform flag go out as a send's (SendRequest.android, platforms); the send's own flags take precedence", async () => {
    const made = await api.request('POST', '/api/v1/templates', {
      key: app.key,
      body: { app_id: app.app.id, name: 'Android only', contents: { en: 'x' }, existing_android_channel_id: 'news', small_icon: 'ic_bell', android_accent_color: 'FF0099CC', android_sound: 'chime', android_group: 'g', isIos: false },
    });
    expect(made.status, JSON.stringify(made.body)).to.equal(200);
    const stored = async (fields: Record<string, unknown>) => {
      const res = await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, included_segments: ['Subscribed Users'], template_id: made.body.id, ...fields } });
      expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 202]);
      return (await env.pool.query('SELECT request FROM sends WHERE id = $1', [res.body.id])).rows[0].request;
    };
    const plain = await stored({});
    expect([plain.android, plain.platforms]).to.deep.equal([{ channelId: 'news', smallIcon: 'ic_bell', accentColor: 'FF0099CC', sound: 'chime', group: 'g' }, ['android']]);
    const both = await stored({ isIos: true, android_sound: 'other' });
    expect([both.android.sound, both.platforms]).to.deep.equal(['other', undefined]);
  });

  it("a missing, malformed or other app's template is a 422 naming template_id; without one contents is required as before", async () => {
    const other = await makeApp(env.pool);
    const theirs = await officialClient(api.url, other.key).createTemplate(Object.assign(new OneSignal.CreateTemplateRequest(), { app_id: other.app.id, name: 'Theirs', contents: { en: 'theirs' } }));
    for (const id of [theirs.id!, '00000000-0000-4000-8000-00000000dead', 'not-an-id']) {
      const refusal = await refused(client.createNotification(notification({ template_id: id })));
      expect([refusal.code, refusal.body.errors]).to.deep.equal([422, [unknownTemplate(id)]]);
    }
    const wrongType = await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, included_segments: ['Subscribed Users'], template_id: 7 } });
    expect([wrongType.status, wrongType.body.errors]).to.deep.equal([422, [CONTENTS_REQUIRED, 'template_id must be text: the id of a template of this app.']]);
  });

  it('an idempotent repeat replays its first answer after the template changed; the send keeps the first content', async () => {
    const body = { app_id: app.app.id, included_segments: ['Subscribed Users'], template_id: templateId };
    const headers = { 'Idempotency-Key': `template-replay-${templateId}` };
    const first = await api.request('POST', '/api/v1/notifications', { key: app.key, body, headers });
    expect(first.status, JSON.stringify(first.body)).to.be.oneOf([200, 202]);
    await client.updateTemplate(templateId, app.app.id, Object.assign(new OneSignal.UpdateTemplateRequest(), { contents: { en: 'Changed since' } }));
    const again = await api.request('POST', '/api/v1/notifications', { key: app.key, body, headers });
    expect([again.status, again.body, again.headers.get('idempotent-replay')]).to.deep.equal([first.status, first.body, 'true']);
    expect((await report(String(first.body.id))).contents).to.deep.equal({ en: 'From the template', fr: 'Du modèle' });
    // A new send (no key) takes the template as it is now.
    const later = await client.createNotification(notification({ template_id: templateId }));
    expect((await report(String(later.id))).contents).to.deep.equal({ en: 'Changed since' });
  });
  it('a repeat after the template was deleted replays its first answer (no new send); a new key naming it is a 422 naming template_id', async () => {
    const made = await client.createTemplate(Object.assign(new OneSignal.CreateTemplateRequest(), { app_id: app.app.id, name: 'Gone soon', contents: { en: 'Soon deleted' } }));
    const body = { app_id: app.app.id, included_segments: ['Subscribed Users'], template_id: made.id! };
    const send = (key: string) => api.request('POST', '/api/v1/notifications', { key: app.key, body, headers: { 'Idempotency-Key': key } });
    const sends = async () => (await env.pool.query('SELECT count(*)::int AS n FROM sends WHERE app_id = $1', [app.app.id])).rows[0].n as number;
    const key = `template-deleted-${made.id}`;
    const first = await send(key);
    expect(first.status, JSON.stringify(first.body)).to.be.oneOf([200, 202]);
    expect((await client.deleteTemplate(made.id!, app.app.id)).success).to.equal(true);
    const before = await sends();
    const again = await send(key);
    expect([again.status, again.body, again.headers.get('idempotent-replay')]).to.deep.equal([first.status, first.body, 'true']);
    expect(await sends()).to.equal(before);
    const fresh = await send(`${key}-new`);
    expect([fresh.status, fresh.body.errors]).to.deep.equal([422, [unknownTemplate(made.id!)]]);
    expect(await sends()).to.equal(before);
  });
});
