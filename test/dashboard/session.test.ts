// Dashboard sessions without a browser: the cookie's flags (Secure behind TLS), the token stored
// only hashed, a revoked key ending its sessions, allow-lists at sign-in, tenancy of live.json,
// the security headers and the asset whitelist.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { useTestEnv } from '../env/index.js';
import { startTestApi, useTestApi } from '../support/api-server.js';
import { makeApp, type TestApp } from '../support/apps.js';
import { createKey, revokeKey } from '../../core/apps/keys.js';
import { MAX_SESSIONS_PER_KEY } from '../../api/dashboard/session.js';
import { BucketRateLimiter } from '../../api/rate-limit/bucket-limiter.js';
import { MemoryBucketStore } from '../../core/buckets/memory-store.js';
import { BUCKETS } from '../../core/buckets/policy.js';

describe('dashboard sessions', () => {
  const env = useTestEnv({ redis: false });
  const api = useTestApi(env);
  let app: TestApp;
  let other: TestApp;

  before(async () => {
    app = await makeApp(env.pool);
    other = await makeApp(env.pool);
  });

  const get = (path: string, cookie?: string) => fetch(api.url + path, { redirect: 'manual', headers: cookie ? { cookie } : {} });
  async function signIn(key: string, headers: Record<string, string> = {}) {
    const res = await fetch(`${api.url}/dashboard/sign-in`, {
      method: 'POST', redirect: 'manual', body: new URLSearchParams({ key }),
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    });
    const setCookie = res.headers.get('set-cookie') ?? '';
    return { res, setCookie, cookie: setCookie.split(';')[0] };
  }

  it('sends a page without a session to the sign-in page', async () => {
    const res = await get('/dashboard/');
    expect(res.status).to.equal(302);
    expect(res.headers.get('location')).to.equal('/dashboard/sign-in');
    expect((await get('/dashboard')).headers.get('location')).to.equal('/dashboard/');
    expect((await get('/dashboard/sends/1/live.json')).status).to.equal(401);
  });

  it('sets an httpOnly, SameSite=Strict cookie on /dashboard, Secure behind TLS, and stores only its hash', async () => {
    const plain = await signIn(app.key);
    expect(plain.res.status).to.equal(302);
    expect(plain.setCookie).to.match(/^herald_session=[\w-]{43}; path=\/dashboard; expires=.*; samesite=strict; httponly$/i);
    const tls = await signIn(app.key, { 'x-forwarded-proto': 'https' });
    expect(tls.setCookie).to.match(/; secure;/i);
    const token = plain.cookie.split('=')[1];
    const rows = (await env.pool.query('SELECT hash FROM dashboard_sessions')).rows.map((r) => (r.hash as Buffer).toString('hex'));
    expect(rows).to.include(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(rows)).not.to.contain(Buffer.from(token).toString('hex'));
    expect((await get('/dashboard/', plain.cookie)).status).to.equal(200);
  });

  it('ends the sessions of a revoked key', async () => {
    const { key, record } = await createKey(env.pool, app.app.id, { name: 'temp' });
    const { cookie } = await signIn(key);
    expect((await get('/dashboard/', cookie)).status).to.equal(200);
    await revokeKey(env.pool, app.app.id, record.id);
    expect((await get('/dashboard/', cookie)).headers.get('location')).to.equal('/dashboard/sign-in');
  });

  it('refuses a key outside its allow-list and a wrong key with the same page', async () => {
    const { key } = await createKey(env.pool, app.app.id, { name: 'office', allowIps: ['10.0.0.0/8'] });
    const outside = await signIn(key, { 'x-forwarded-for': '192.0.2.1' });
    expect(outside.res.status).to.equal(401);
    expect(outside.setCookie).to.equal('');
    expect(await outside.res.text()).to.contain('This key is not valid here');
    expect((await signIn(key, { 'x-forwarded-for': '10.1.2.3' })).res.status).to.equal(302);
    expect((await signIn('hk_wrong')).res.status).to.equal(401);
  });

  it("honours the key's allow-list on every request, not only at sign-in", async () => {
    const { key } = await createKey(env.pool, app.app.id, { name: 'office-only', allowIps: ['10.0.0.0/8'] });
    const { cookie } = await signIn(key, { 'x-forwarded-for': '10.1.2.3' });
    const from = (ip: string) => fetch(`${api.url}/dashboard/`, { redirect: 'manual', headers: { cookie, 'x-forwarded-for': ip } });
    expect((await from('10.9.9.9')).status).to.equal(200);
    const outside = await from('192.0.2.7');
    expect(outside.status).to.equal(302);
    expect(outside.headers.get('location')).to.equal('/dashboard/sign-in');
  });

  it('keeps at most MAX_SESSIONS_PER_KEY sessions per key: signing in again ends the oldest', async () => {
    const { key, record } = await createKey(env.pool, app.app.id, { name: 'many' });
    const first = await signIn(key);
    for (let i = 0; i < MAX_SESSIONS_PER_KEY + 2; i++) expect((await signIn(key)).res.status).to.equal(302);
    const n = Number((await env.pool.query('SELECT count(*) FROM dashboard_sessions WHERE key_id = $1', [record.id])).rows[0].count);
    expect(n).to.equal(MAX_SESSIONS_PER_KEY);
    expect((await get('/dashboard/', first.cookie)).headers.get('location')).to.equal('/dashboard/sign-in');
  });

  it('refuses a sign-in posted with Origin: null', async () => {
    const res = await signIn(app.key, { origin: 'null' });
    expect(res.res.status).to.equal(403);
    expect(res.setCookie).to.equal('');
  });

  it('draws the anonymous bucket on every sign-in, a valid key included', async () => {
    // The bucket's clock stands still, so the answer does not depend on how fast the machine is:
    // exactly the burst passes, and every sign-in past it is refused, a valid key included.
    const { burst } = BUCKETS.anonymous;
    const limited = await startTestApi(env, { rateLimiter: new BucketRateLimiter(new MemoryBucketStore({ clock: () => 1_700_000_000_000 }), 'signin:') });
    try {
      const attempt = () =>
        fetch(`${limited.url}/dashboard/sign-in`, { method: 'POST', redirect: 'manual', body: new URLSearchParams({ key: app.key }), headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '198.51.100.4' } });
      const statuses: number[] = [];
      for (let i = 0; i < burst + 3; i++) statuses.push((await attempt()).status);
      expect(statuses.filter((st) => st === 302), 'the sign-ins within the burst pass').to.have.length(burst);
      expect(statuses.slice(0, burst).every((st) => st === 302), 'the first sign-ins pass').to.equal(true);
      expect(statuses.slice(burst), `past the bucket (${burst} a minute), a valid key is refused too`).to.deep.equal([429, 429, 429]);
    } finally {
      await limited.close();
    }
  });

  it('refuses a form posted from another origin, sign-in included', async () => {
    const res = await signIn(app.key, { origin: 'https://evil.example' });
    expect(res.res.status).to.equal(403);
    expect(res.setCookie).to.equal('');
    expect((await signIn(app.key, { origin: api.url })).res.status).to.equal(302);
  });

  it("keeps to the session's app: another app's send is a 404 in live.json", async () => {
    const { cookie } = await signIn(app.key);
    const res = await api.request('POST', '/api/v1/notifications', { key: other.key, body: { app_id: other.app.id, contents: { en: 'x' }, included_segments: ['All'] } });
    expect((await get(`/dashboard/sends/${res.body.id}/live.json`, cookie)).status).to.equal(404);
    const mine = await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'y' }, included_segments: ['All'] } });
    const live = await get(`/dashboard/sends/${mine.body.id}/live.json`, cookie);
    expect(live.status).to.equal(200);
    expect((await live.json()).report).to.include({ id: mine.body.id, source: 'api' });
  });

  it('answers with a strict Content-Security-Policy and serves only its own two assets', async () => {
    const page = await get('/dashboard/sign-in');
    expect(page.headers.get('content-security-policy')).to.contain("default-src 'none'").and.contain("frame-ancestors 'none'");
    expect(page.headers.get('x-content-type-options')).to.equal('nosniff');
    const js = await get('/dashboard/assets/dashboard.js');
    expect(js.status).to.equal(200);
    expect(js.headers.get('content-type')).to.contain('javascript');
    expect((await get('/dashboard/assets/html.ts')).status).to.equal(404);
    expect((await get('/dashboard/assets/..%2Fhtml.ts')).status).to.equal(404);
  });
});
