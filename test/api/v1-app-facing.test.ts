// OneSignal's v1 device calls made by an app with its App ID alone, as the iOS SDK before 5
// registers (issue 38 point 1): the app-facing rules of POST /apps/{app_id}/subscriptions,
// identity verification included; and made with a key: the v5 equivalents' scope and app checks.
// Every answer is checked against the OpenAPI document (test/support/api-server.ts).
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { makeApp, type TestApp } from '../support/apps.js';
import { createKey } from '../../core/apps/keys.js';
import { externalIdAuthHash, issueIdentitySecret, setIdentityRequired } from '../../core/apps/identity.js';
import { AUTH_HASH_WRONG } from '../../api/routes/identity.js';

describe('api: OneSignal v1 device calls, app-facing and keyed', () => {
  const env = useTestEnv();
  const api = useTestApi(env);
  let app: TestApp;
  let n = 0;
  const token = () => (0xe000 + ++n).toString(16).padStart(64, '0');
  const post = (path: string, body: Record<string, unknown>, key?: string) => api.request('POST', `/api/v1/players${path}`, { body, key });

  before(async () => {
    app = await makeApp(env.pool);
  });

  it('registers with the App ID alone and answers {"success": true, "id"}', async () => {
    const res = await post('', { app_id: app.app.id, device_type: 0, identifier: token(), language: 'en', device_os: '12.4', game_version: '2.0' });
    expect(res.status).to.equal(200);
    expect(res.body).to.have.keys('success', 'id');
    const read = await api.request('GET', `/api/v1/players/${res.body.id}?app_id=${app.app.id}`, { key: app.key });
    expect(read.status).to.equal(200);
    expect(read.body).to.include({ id: res.body.id, language: 'en', session_count: 1 });
    expect((await post(`/${res.body.id}/on_focus`, { app_id: app.app.id, state: 'ping', active_time: 30 })).status).to.equal(200);
    expect((await post(`/${res.body.id}/on_session`, { app_id: app.app.id })).status).to.equal(200);
    const put = await api.request('PUT', `/api/v1/players/${res.body.id}`, { body: { app_id: app.app.id, tags: { k: 'v' } } });
    expect(put.status).to.equal(200);
  });

  it("answers the iOS SDK's ios_params.js with the app's identity verification and the features Herald has not off", async () => {
    const res = await api.request('GET', `/api/v1/apps/${app.app.id}/ios_params.js?player_id=x`);
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ require_user_id_auth: false, require_email_auth: false, receive_receipts_enable: false });
    expect((await api.request('GET', '/api/v1/apps/00000000-0000-4000-8000-000000000000/ios_params.js')).status).to.equal(404);
  });

  it('needs the App ID of an app that exists, and a token', async () => {
    expect((await post('', { device_type: 0, identifier: token() })).body.errors).to.deep.equal(["app_id is required: the App ID (or call with the app's REST API key)."]);
    expect((await post('', { app_id: '00000000-0000-4000-8000-000000000000', device_type: 0, identifier: token() })).status).to.equal(404);
    const none = await post('', { app_id: app.app.id, device_type: 0 });
    expect(none.status).to.equal(422);
    expect(none.body.errors[0]).to.match(/^identifier is required/);
    expect((await post('', { app_id: app.app.id, identifier: token() })).body.errors).to.deep.equal(['device_type is required: 0 iOS or 1 Android.']);
  });

  it('refuses broken bodies with a 4xx naming the field, at the edges of each bound', async () => {
    const base = { app_id: app.app.id, device_type: 0 };
    const tags = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
    expect((await post('', { ...base, identifier: token(), tags: tags(200) })).status).to.equal(200);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...base, identifier: token(), tags: tags(201) }, 'tags holds more than 200 entries.'],
      [{ ...base, identifier: token(), timezone: '3600' }, 'timezone must be a whole number of seconds east of UTC, -43200 to 50400.'],
      [{ ...base, identifier: token(), language: 'english' }, 'language must be a language code such as en or pt-BR.'],
      [{ ...base, identifier: token(), external_user_id: 'x'.repeat(129) }, 'external_user_id is longer than 128 characters.'],
      [{ ...base, identifier: token(), timezone_id: 'Mars/Olympus' }, 'timezone_id must be an IANA time zone such as Europe/Paris.'],
      [{ ...base, identifier: token(), amount_spent: '-1' }, 'amount_spent must be a number from 0 to 1000000000.'],
      [{ ...base, identifier: token(), device_type: '0' }, 'device_type must be a number: 0 iOS or 1 Android.'],
    ];
    for (const [body, sentence] of cases) {
      const res = await post('', body);
      expect([res.status, res.body.errors], JSON.stringify(body).slice(0, 80)).to.deep.equal([422, [sentence]]);
    }
    const nul = await post('', { ...base, identifier: token(), tags: { a: 'x\u0000y' } });
    expect(nul.status).to.be.oneOf([400, 422]);
    const notObject = await api.request('POST', '/api/v1/players', { rawBody: '[1]', headers: { 'content-type': 'application/json' } });
    expect(notObject.status).to.be.oneOf([400, 422]);
  });

  describe('with identity verification on', () => {
    let secret: string;
    before(async () => {
      secret = await issueIdentitySecret(env.pool, app.app.id, true);
    });
    after(async () => {
      await setIdentityRequired(env.pool, app.app.id, false);
    });

    it('refuses an external_user_id without its hash, and takes it with the hash', async () => {
      expect((await api.request('GET', `/api/v1/apps/${app.app.id}/ios_params.js`)).body.require_user_id_auth).to.equal(true);
      const refused = await post('', { app_id: app.app.id, device_type: 0, identifier: token(), external_user_id: 'victim' });
      expect(refused.status).to.equal(403);
      expect(refused.body.errors).to.deep.equal([AUTH_HASH_WRONG]);
      const ok = await post('', { app_id: app.app.id, device_type: 0, identifier: token(), external_user_id: 'victim', external_user_id_auth_hash: externalIdAuthHash(secret, 'victim') });
      expect(ok.status).to.equal(200);
      // Changing that install now needs the hash of its external id, as PATCH /subscriptions does.
      const put = await api.request('PUT', `/api/v1/players/${ok.body.id}`, { body: { app_id: app.app.id, tags: { a: '1' } } });
      expect(put.status).to.equal(403);
      const session = await post(`/${ok.body.id}/on_session`, { app_id: app.app.id });
      expect(session.status).to.equal(403);
      const withHash = await post(`/${ok.body.id}/on_session`, { app_id: app.app.id, external_user_id_auth_hash: externalIdAuthHash(secret, 'victim') });
      expect(withHash.status).to.equal(200);
      // A backend's REST key is the server: no hash asked.
      const keyed = await api.request('PUT', `/api/v1/players/${ok.body.id}`, { key: app.key, body: { tags: { a: '1' } } });
      expect(keyed.status).to.equal(200);
    });
  });

  it('with a key: scope send for a change, the key\'s own app, and a wrong key is a 401 (never app-facing)', async () => {
    const { key: readKey } = await createKey(env.pool, app.app.id, { scope: 'read' });
    const other = await makeApp(env.pool);
    const body = { device_type: 0, identifier: token() };
    expect((await post('', body, readKey)).status).to.equal(403);
    expect((await post('', { ...body, app_id: other.app.id }, app.key)).status).to.equal(403);
    expect((await post('', { ...body, app_id: app.app.id }, 'hk_wrong')).status).to.equal(401);
    const made = await post('', body, app.key);
    expect(made.status).to.equal(200);
    expect((await api.request('GET', `/api/v1/players/${made.body.id}`, { key: readKey })).status).to.equal(200);
    expect((await api.request('GET', `/api/v1/players/${made.body.id}?app_id=${other.app.id}`, { key: app.key })).status).to.equal(403);
    expect((await api.request('GET', `/api/v1/players/${made.body.id}`, { key: other.key })).status).to.equal(404);
    expect((await api.request('DELETE', `/api/v1/players/${made.body.id}`, { key: readKey })).status).to.equal(403);
    expect((await api.request('GET', `/api/v1/players?app_id=${app.app.id}&limit=300`, { key: readKey })).status).to.equal(200);
    expect((await api.request('GET', `/api/v1/players?limit=301`, { key: readKey })).status).to.equal(422);
    const tags = await api.request('PUT', `/api/v1/apps/${app.app.id}/users/${'x'.repeat(129)}`, { key: app.key, body: { tags: { a: '1' } } });
    expect(tags.status).to.equal(422);
  });
});
