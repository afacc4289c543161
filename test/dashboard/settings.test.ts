// The Settings page in a real browser against a real api (issue 40 point 2): the App ID shown and
// copied; the keys with their scope, allow-list, creation, last use and origin; a key made by an
// admin session behind one confirmation, shown once (never in the database, a page after it or
// the logs) and working, then revoked behind another; the App resource's keys read-only; a session
// of another scope sees the list and changes nothing; the credentials' state (APNs and Firebase)
// and the destinations.
import { expect } from 'chai';
import { join } from 'node:path';
import pino from 'pino';
import type { Page } from 'playwright-core';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { launchBrowser, signIn as signInAt, type TestBrowser } from '../support/browser.js';
import { makeApp, type TestApp } from '../support/apps.js';
import { createKey } from '../../core/apps/keys.js';
import { applyApp } from '../../core/apps/file-source.js';
import { storeDestinations } from '../../core/events/destinations.js';
import { keyUse } from '../../api/shared/key-use.js';
import { waitFor } from '../support/wait.js';
import { generateKeyPairSync } from 'node:crypto';

const SHOTS = process.env.HERALD_DASHBOARD_SCREENSHOTS;

describe('dashboard: settings', function () {
  this.timeout(60_000);
  const env = useTestEnv();
  const logged: string[] = [];
  const api = useTestApi(env, () => ({ logger: pino({ level: 'debug' }, { write: (line: string) => void logged.push(line) }) }));
  let browser: TestBrowser;
  let page: Page;
  let app: TestApp;
  let adminKey: string;
  let sendKey: string;
  let gitopsId: string;

  const signIn = (key: string) => signInAt(page, api.url, key);
  const keyRow = (name: string) => page.locator(`#keys tr[data-name="${name}"]`);
  const cell = (name: string, label: string) => keyRow(name).locator(`td[data-label="${label}"]`).textContent();
  const rest = (key: string) => api.request('GET', '/api/v1/notifications/1', { key });

  before(async function () {
    this.timeout(180_000);
    app = await makeApp(env.pool, { name: 'settings-shop' });
    adminKey = (await createKey(env.pool, app.app.id, { name: 'owner', scope: 'admin' })).key;
    sendKey = (await createKey(env.pool, app.app.id, { name: 'backend', scope: 'send', allowIps: ['127.0.0.0/8'] })).key;
    gitopsId = (await createKey(env.pool, app.app.id, { name: 'gitops', scope: 'read', source: 'app_resource' })).record.id;
    await storeDestinations(env.pool, app.app.id, [{ name: 'crm', url: 'https://hooks.example.com/in?token=s3cret', kinds: ['message.push.sent'], secretRef: { name: 'x', key: 'y' }, secret: 'whsec_x' }]);
    browser = await launchBrowser();
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: api.url });
    page = await browser.context.newPage();
  });

  after(async () => {
    await browser?.close();
  });

  it('shows the App ID and copies it with its button', async () => {
    await signIn(adminKey);
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.waitForURL(`${api.url}/dashboard/settings`);
    expect(await page.locator('#app-id').textContent()).to.equal(app.app.id);
    await page.getByRole('button', { name: 'Copy the App ID' }).click();
    await page.locator('#app-id-copied', { hasText: 'Copied.' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).to.equal(app.app.id);
  });

  it("lists the keys: scope, allow-list, created, last used (written once a minute, not per call) and where each was made", async () => {
    expect((await rest(sendKey)).status).to.equal(404); // authenticated: the send just does not exist
    await page.reload();
    expect(await cell('backend', 'Last used')).to.equal('not yet'); // noted in memory, not yet written
    await keyUse(api.deps.pool).flush(); // what each api process does once a minute
    await page.reload();
    expect(await cell('backend', 'Last used')).to.match(/^\d{4}-\d\d-\d\d\u00a0\d\d:\d\d$/);
    expect([await cell('backend', 'Scope'), await cell('backend', 'Allowed from'), await cell('backend', 'Made with')]).to.deep.equal(['send', '127.0.0.0/8', 'herald keys create']);
    expect(await cell('owner', 'Last used')).to.match(/^\d{4}-/); // this session's pages use its key
    expect(await cell('owner', 'Name')).to.equal("owner (this session's)");
    expect([await cell('gitops', 'Made with'), await cell('gitops', 'Revoke')]).to.deep.equal(['the App resource (spec.apiKeys)', 'change it in the App']);
    expect(await keyRow('backend').getByRole('link', { name: 'Revoke…' }).count()).to.equal(1);
  });

  it('makes a key behind one confirmation, shows it once, never stores or logs it; it works and is listed without it', async () => {
    await page.goto(`${api.url}/dashboard/settings`);
    await page.getByRole('link', { name: 'New key…' }).click();
    // Refusals beside their fields, in the rule's sentences; the name's maxlength is its limit.
    expect(await page.getByLabel(/^Name/).getAttribute('maxlength')).to.equal('63');
    await page.getByLabel(/^Allowed from/).fill('everywhere');
    await page.getByRole('button', { name: 'Review' }).click();
    expect(await page.locator('#name-errors').textContent()).to.equal('name is required: what the key is for, as a person reads it.');
    expect(await page.locator('#allow_ips-errors').textContent()).to.equal('allow_ips: "everywhere" is not an address or a range such as 10.0.0.0/8 (with no bits set after the mask).');
    await page.getByLabel(/^Name/).fill('c'.repeat(63));
    await page.getByLabel(/^Allowed from/).fill('10.0.0.1/8');
    await page.getByRole('button', { name: 'Review' }).click();
    expect(await page.locator('#allow_ips-errors').textContent()).to.contain('"10.0.0.1/8" is not an address');
    expect(await page.locator('#name-errors').count()).to.equal(0); // 63 characters: taken
    await page.getByLabel(/^Name/).fill('ci-bot');
    await page.getByLabel('read: stats').check();
    await page.getByLabel(/^Allowed from/).fill('127.0.0.0/8\n::1');
    await page.getByRole('button', { name: 'Review' }).click();
    expect(await page.locator('#key-review dd[data-field="Allowed from"]').textContent()).to.equal('127.0.0.0/8, ::1');
    expect(await env.pool.query("SELECT 1 FROM api_keys WHERE name = 'ci-bot'").then((r) => r.rowCount)).to.equal(0); // nothing made yet
    await page.getByRole('button', { name: 'Create the key' }).click();
    const key = (await page.locator('#new-key').textContent())!;
    expect(key).to.match(/^hk_[0-9A-Za-z]{40}$/);
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'settings-key-created.png'), fullPage: true });
    await page.getByRole('button', { name: 'Copy the key' }).click();
    await page.locator('#new-key-copied', { hasText: 'Copied.' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).to.equal(key);
    // It works, as a read key: it reads, and may not send.
    expect((await rest(key)).status).to.equal(404);
    expect((await api.request('POST', '/api/v1/notifications', { key, body: { app_id: app.app.id, contents: { en: 'x' }, included_segments: ['All'] } })).status).to.equal(403);
    // Listed without its secret; in no column of the database, no page after, no log line.
    await page.getByRole('link', { name: 'Done' }).click();
    expect([await cell('ci-bot', 'Scope'), await cell('ci-bot', 'Allowed from'), await cell('ci-bot', 'Made with')]).to.deep.equal(['read', '127.0.0.0/8, ::1/128', 'this dashboard']);
    expect(await page.content()).to.not.contain(key);
    const dump = await env.pool.query("SELECT row_to_json(k)::text AS row FROM api_keys k WHERE name = 'ci-bot'");
    expect(dump.rows[0].row).to.not.contain(key.slice(3));
    expect(logged.join('')).to.contain('key created from the dashboard');
    expect(logged.join('')).to.not.contain(key.slice(3));
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'settings.png'), fullPage: true });
  });

  it('revokes a key behind a confirmation; an App resource key only in the App', async () => {
    const made = (await createKey(env.pool, app.app.id, { name: 'temp', source: 'dashboard' })).key;
    await page.goto(`${api.url}/dashboard/settings`);
    await keyRow('temp').getByRole('link', { name: 'Revoke…' }).click();
    expect(await page.locator('h1').textContent()).to.equal('Revoke key temp?');
    await page.getByRole('link', { name: 'No, keep it' }).click();
    expect(await cell('temp', 'State')).to.equal('active');
    expect((await rest(made)).status).to.equal(404);
    await keyRow('temp').getByRole('link', { name: 'Revoke…' }).click();
    await page.getByRole('button', { name: 'Yes, revoke temp' }).click();
    expect(await page.locator('#notice').textContent()).to.equal('Key temp was revoked: calls made with it are refused within 5 seconds.');
    expect(await cell('temp', 'State')).to.match(/^revoked \d{4}-/);
    // The api's key cache keeps an entry 2 s (decisions: "key cache"): refused once it lapses.
    await waitFor('the revoked key refused', async () => (await rest(made)).status === 401);
    // The App resource's key: no link, and a forged POST is refused naming the App.
    const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
    const forged = await page.request.post(`${api.url}/dashboard/settings/keys/${gitopsId}/revoke`, { form: { _csrf: csrf } });
    expect(forged.status()).to.equal(409);
    expect(await forged.text()).to.contain('This key comes from the App resource settings-shop (spec.apiKeys): revoke it there.');
    expect(await env.pool.query('SELECT revoked_at FROM api_keys WHERE id = $1', [gitopsId]).then((r) => r.rows[0].revoked_at)).to.equal(null);
  });

  it('shows a send session the keys read-only, and refuses it every change', async () => {
    await signIn(sendKey);
    await page.goto(`${api.url}/dashboard/settings`);
    expect(await page.locator('#keys-read-only').textContent()).to.contain('needs a key of scope admin');
    expect(await page.getByRole('link', { name: 'New key…' }).count()).to.equal(0);
    expect(await page.getByRole('link', { name: 'Revoke…' }).count()).to.equal(0);
    expect((await page.request.get(`${api.url}/dashboard/settings/keys/new`)).status()).to.equal(403);
    const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
    const ownerId = (await env.pool.query("SELECT id FROM api_keys WHERE name = 'owner'")).rows[0].id;
    const tried = await page.request.post(`${api.url}/dashboard/settings/keys/${ownerId}/revoke`, { form: { _csrf: csrf } });
    expect(tried.status()).to.equal(403);
    const made = await page.request.post(`${api.url}/dashboard/settings/keys/new`, { form: { _csrf: csrf, step: 'create', name: 'sneaky', scope: 'admin' } });
    expect(made.status()).to.equal(403);
    expect(await env.pool.query("SELECT 1 FROM api_keys WHERE name = 'sneaky'").then((r) => r.rowCount)).to.equal(0);
  });

  it('shows the credentials: ready with key id and team id, or why not; and the destinations without their URL query', async () => {
    await page.goto(`${api.url}/dashboard/settings`);
    expect(await page.locator('#credentials dd[data-field="State"]').textContent()).to.equal('Ready (CredentialsValid)');
    expect([await page.locator('#credentials dd[data-field="Key id"]').textContent(), await page.locator('#credentials dd[data-field="Team id"]').textContent()]).to.deep.equal(['KEYID12345', 'TEAMID1234']);
    expect(await page.locator('#credentials-message').textContent()).to.equal('Token key KEYID12345 of team TEAMID1234 is a valid ES256 key.');
    expect(await page.locator('#destinations tr[data-name="crm"] td[data-label="Where"]').textContent()).to.equal('https://hooks.example.com/in (query not shown)');
    expect(await page.content()).to.not.contain('s3cret');
    // An App applied with a Secret that is not there: not ready, the condition's reason and sentence.
    const broken = await applyApp(env.pool, { name: 'settings-broken', spec: { bundleId: 'com.example.broken', credentials: { type: 'token', secretRef: { name: 'gone' }, keyId: 'ABCDE12345', teamId: 'TEAM123456' } } }, new Map());
    await signIn((await createKey(env.pool, broken.app.id, { scope: 'read' })).key);
    await page.goto(`${api.url}/dashboard/settings`);
    expect(await page.locator('#credentials dd[data-field="State"]').textContent()).to.equal('Not ready (SecretMissing)');
    expect(await page.locator('#credentials-message').textContent()).to.equal('Secret gone was not found. Sends of this app are saved as drafts and not delivered.');
    // Another app's key is not found here.
    expect((await page.request.get(`${api.url}/dashboard/settings/keys/${gitopsId}/revoke`)).status()).to.equal(403); // a read session: refused first
  });

  it('shows the Firebase credentials beside APNs: not configured, ready with the project and service account (never the key), or why not', async () => {
    const field = (section: string, name: string) => page.locator(`#${section} dd[data-field="${name}"]`).textContent();
    await signIn(adminKey); // settings-shop: APNs only
    await page.goto(`${api.url}/dashboard/settings`);
    expect(await field('fcm-credentials', 'State')).to.equal('Not configured (NotConfigured)');
    expect(await page.locator('#fcm-credentials-message').textContent()).to.equal("No Firebase credentials are configured (spec.fcm). The app's Android devices are skipped.");

    const privateKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const json = (over: Record<string, string> = {}) => Buffer.from(JSON.stringify({
      type: 'service_account', project_id: 'droid-shop', private_key: privateKey, client_email: 'push@droid-shop.iam.gserviceaccount.com', token_uri: 'https://oauth2.googleapis.com/token', ...over,
    }));
    const droid = await applyApp(env.pool, { name: 'settings-droid', spec: { bundleId: 'com.example.droid', fcm: { secretRef: { name: 'droid-fcm' } } } }, new Map([['droid-fcm', { 'service-account.json': json() }]]));
    await signIn((await createKey(env.pool, droid.app.id, { scope: 'read' })).key);
    await page.goto(`${api.url}/dashboard/settings`);
    expect(await field('fcm-credentials', 'State')).to.equal('Ready (CredentialsValid)');
    expect([await field('fcm-credentials', 'Project id'), await field('fcm-credentials', 'Service account')]).to.deep.equal(['droid-shop', 'push@droid-shop.iam.gserviceaccount.com']);
    expect(await page.locator('#fcm-credentials-message').textContent()).to.equal('Service account push@droid-shop.iam.gserviceaccount.com of Firebase project droid-shop has a readable RSA key.');
    // No APNs credentials beside usable Firebase ones is a choice: the app still sends.
    expect(await field('credentials', 'State')).to.equal('Not ready (NotConfigured)');
    expect(await page.locator('#credentials-message').textContent()).to.equal('No APNs credentials are configured (spec.credentials): the app sends through Firebase only.');
    const content = await page.content();
    expect(content).to.not.contain('PRIVATE KEY');
    expect(content).to.not.contain(privateKey.split('\n')[1]);
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'settings-fcm.png'), fullPage: true });

    // A token_uri in plain http to Google: not stored; the condition's reason and sentence.
    await applyApp(env.pool, { name: 'settings-droid', spec: { bundleId: 'com.example.droid', fcm: { secretRef: { name: 'droid-fcm' } } } }, new Map([['droid-fcm', { 'service-account.json': json({ token_uri: 'http://oauth2.googleapis.com/token' }) }]]));
    await page.reload();
    expect(await field('fcm-credentials', 'State')).to.equal('Not ready (FcmTokenUriInvalid)');
    expect(await page.locator('#fcm-credentials dd[data-field="Project id"]').count()).to.equal(0);
    expect(await page.locator('#fcm-credentials-message').textContent()).to.equal("Token_uri in service-account.json of Secret droid-fcm must be https (http is accepted for this machine only: localhost, 127.0.0.1, ::1). The app's Android devices are skipped.");
    expect(await page.locator('#credentials-message').textContent()).to.equal('No credentials are configured. Sends of this app are saved as drafts and not delivered.');
  });
});
