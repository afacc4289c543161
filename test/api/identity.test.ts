// With identity verification on, nobody can attach another user's external id to their
// own install (and so receive that user's include_external_ids sends, one-time codes included)
// without the hash only the app's server can make.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { makeApp, type TestApp } from '../support/apps.js';
import { externalIdAuthHash, issueIdentitySecret } from '../../core/apps/identity.js';
import { AUTH_HASH_WRONG } from '../../api/routes/identity.js';
import { herald } from '../support/cli.js';

describe('api: identity verification of the app-facing calls', () => {
  const env = useTestEnv();
  const api = useTestApi(env);
  let app: TestApp;
  let n = 0;
  const token = () => (0xa000 + ++n).toString(16).padStart(64, '0');
  before(async () => {
    app = await makeApp(env.pool);
  });

  const register = (body: Record<string, unknown>) => api.request('POST', `/api/v1/apps/${app.app.id}/subscriptions`, { body });
  const patch = (id: string, body: Record<string, unknown>) => api.request('PATCH', `/api/v1/apps/${app.app.id}/subscriptions/${id}`, { body });

  it('is off by default: an install may name any external id (compatibility)', async () => {
    expect((await register({ token: token(), external_id: 'victim' })).status).to.equal(201);
  });

  describe('when the app requires it', () => {
    let secret: string;
    before(async () => {
      secret = await issueIdentitySecret(env.pool, app.app.id, true);
    });

    it("refuses to attach a victim's external id without the hash, or with a wrong one", async () => {
      for (const hash of [undefined, 'nope', externalIdAuthHash('another secret', 'victim'), externalIdAuthHash(secret, 'attacker')]) {
        const res = await register({ token: token(), external_id: 'victim', external_id_auth_hash: hash });
        expect(res.status, String(hash)).to.equal(403);
        expect(res.body.errors).to.deep.equal([AUTH_HASH_WRONG]);
      }
      const rows = await env.pool.query("SELECT count(*)::int AS n FROM subscriptions WHERE app_id = $1 AND external_id = 'victim'", [app.app.id]);
      expect(rows.rows[0].n).to.equal(1); // only the install made before verification was on
    });

    it('accepts the hash made by the server, in upper or lower case hex', async () => {
      const hash = externalIdAuthHash(secret, 'alice');
      expect((await register({ token: token(), external_id: 'alice', external_id_auth_hash: hash })).status).to.equal(201);
      expect((await register({ token: token(), external_id: 'alice', external_id_auth_hash: hash.toUpperCase() })).status).to.equal(201);
    });

    it('needs the hash to change an install that has an external id, by token or by id', async () => {
      const t = token();
      const id = (await register({ token: t, external_id: 'bob', external_id_auth_hash: externalIdAuthHash(secret, 'bob') })).body.id;
      expect((await register({ token: t, tags: { a: '1' } })).status).to.equal(403);
      expect((await patch(id, { external_id: null })).status).to.equal(403);
      expect((await patch(id, { tags: { a: '1' }, external_id_auth_hash: externalIdAuthHash(secret, 'bob') })).status).to.equal(200);
    });

    it('leaves installs without an external id alone', async () => {
      const id = (await register({ token: token(), language: 'fr' })).body.id;
      expect((await patch(id, { tags: { plan: 'free' } })).status).to.equal(200);
    });

    it('a new secret (rotation) stops the old hashes at once', async () => {
      const old = externalIdAuthHash(secret, 'carol');
      secret = await issueIdentitySecret(env.pool, app.app.id);
      expect((await register({ token: token(), external_id: 'carol', external_id_auth_hash: old })).status).to.equal(403);
      expect((await register({ token: token(), external_id: 'carol', external_id_auth_hash: externalIdAuthHash(secret, 'carol') })).status).to.equal(201);
    });
  });

  it('herald apps identity issues a secret once (verification on) and turns it off and on, for apps without a cluster', async function () {
    this.timeout(60_000);
    const other = await makeApp(env.pool);
    const issued = await herald(['apps', 'identity', '--app', other.app.name, 'issue'], env.childEnv());
    expect(issued.code, issued.stderr).to.equal(0);
    const secret = issued.stdout.trim();
    expect(secret).to.match(/^[0-9a-f]{64}$/);
    const reg = (hash?: string) => api.request('POST', `/api/v1/apps/${other.app.id}/subscriptions`, { body: { token: token(), external_id: 'erin', external_id_auth_hash: hash } });
    expect((await reg()).status).to.equal(403);
    expect((await reg(externalIdAuthHash(secret, 'erin'))).status).to.equal(201);
    expect((await herald(['apps', 'identity', '--app', other.app.name, 'off'], env.childEnv())).stdout).to.include('identity verification off');
    expect((await reg()).status).to.equal(201);
  });
});
