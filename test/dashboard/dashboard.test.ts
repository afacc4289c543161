// The dashboard in a real browser (Debian's Chromium, playwright-core) against a real api and
// sender on the test env's servers: sign in, list and filter, a running send watched to approved
// without a reload, compose (source Dashboard, errors next to the field), cancel a scheduled send,
// a read key offered neither compose nor cancel, another app's send not found, CSRF and cookie.
// HERALD_DASHBOARD_SCREENSHOTS=docs/dashboard writes the pages' screenshots for docs/dashboard.md.
import { expect } from 'chai';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { useTestEnv } from '../env/index.js';
import { startTestApi, type TestApi } from '../support/api-server.js';
import { launchBrowser, type TestBrowser } from '../support/browser.js';
import { createKey } from '../../core/apps/keys.js';
import { startApnsSim, type ApnsSim } from '../../apns-sim/index.js';
import type { Sender } from '../../sender/index.js';
import { addDevices, createTestApp, startTestSender, type TestApp } from '../delivery/fixtures.js';

const SHOTS = process.env.HERALD_DASHBOARD_SCREENSHOTS;

describe('dashboard in a browser', function () {
  this.timeout(60_000);
  const env = useTestEnv();
  let api: TestApi;
  let browser: TestBrowser;
  let page: Page;
  let sim: ApnsSim;
  let sender: Sender | undefined;
  let main: TestApp;
  let sendKey: string;
  let readKey: string;
  let otherSendId: number;

  const shot = async (name: string) => {
    if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  };
  const rest = (method: string, path: string, body?: unknown, key = sendKey) => api.request(method, path, { key, body });
  const post = async (body: Record<string, unknown>) => (await rest('POST', '/api/v1/notifications', { app_id: main.app.id, ...body })).body.id as number;
  const later = () => new Date(Date.now() + 86_400_000).toISOString();
  const signIn = async (key: string) => {
    await page.goto(`${api.url}/dashboard/`);
    expect(new URL(page.url()).pathname).to.equal('/dashboard/sign-in');
    await page.getByLabel('REST API key of your app').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${api.url}/dashboard/`);
  };
  const signOut = () => page.getByRole('button', { name: 'Sign out' }).click();
  const rowIds = async () => (await page.locator('tbody tr td:first-child').allTextContents()).map(Number);

  before(async function () {
    this.timeout(180_000);
    api = await startTestApi(env);
    main = await createTestApp(env.pool, 'shop');
    sendKey = (await createKey(env.pool, main.app.id, { name: 'ops', scope: 'send' })).key;
    readKey = (await createKey(env.pool, main.app.id, { name: 'viewer', scope: 'read' })).key;
    const other = await createTestApp(env.pool, 'elsewhere');
    const otherKey = (await createKey(env.pool, other.app.id)).key;
    otherSendId = (await api.request('POST', '/api/v1/notifications', { key: otherKey, body: { app_id: other.app.id, contents: { en: 'not yours' }, included_segments: ['All'], send_after: later() } })).body.id;
    await addDevices(env.pool, main.app.id, 1200, { prefix: 'd1' });
    sim = await startApnsSim({ keys: [{ keyId: main.key.keyId, teamId: main.teamId, publicKey: main.key.publicKeyPem }] });
    browser = await launchBrowser();
    page = await browser.context.newPage();
  });

  after(async () => {
    await browser?.close();
    await sender?.stop();
    await sim?.close();
    await api?.close();
  });

  it('refuses a wrong key on the sign-in page and signs in with a send key', async () => {
    await page.goto(`${api.url}/dashboard/sign-in`);
    await shot('sign-in');
    await page.getByLabel('REST API key of your app').fill('hk_not_a_key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'This key is not valid here' }).waitFor();
    await signIn(sendKey);
    await page.getByText('shop · send key').waitFor();
    const cookie = (await browser.context.cookies()).find((c) => c.name === 'herald_session')!;
    expect(cookie).to.include({ httpOnly: true, sameSite: 'Strict', path: '/dashboard' });
  });

  it('lists sends newest first and filters them by source, status and text', async () => {
    const a = await post({ contents: { en: 'Spring sale starts' }, included_segments: ['All'], send_after: later() });
    const b = await post({ contents: { en: 'Your parcel left' }, headings: { en: 'Shop' }, included_segments: ['All'], send_after: later() });
    const k = await post({ contents: { en: 'Nightly digest' }, included_segments: ['All'], send_after: later() });
    await env.pool.query(`UPDATE sends SET source = 'kubernetes' WHERE id = $1`, [k]);
    await page.goto(`${api.url}/dashboard/`);
    expect((await rowIds()).slice(0, 3)).to.deep.equal([k, b, a]);
    await page.getByLabel('Source').selectOption('kubernetes');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/source=kubernetes/);
    expect(await rowIds()).to.deep.equal([k]);
    await page.goto(`${api.url}/dashboard/?q=parcel&status=scheduled`);
    expect(await rowIds()).to.deep.equal([b]);
    const csv = await page.request.get(`${api.url}/dashboard/sends.csv?q=parcel`);
    expect(csv.headers()['content-type']).to.contain('text/csv');
    expect((await csv.text()).split('\r\n')[1]).to.match(new RegExp(`^${b},Your parcel left,scheduled,false,API,`));
  });

  it('shows a running send progress to approved without a reload', async () => {
    const id = await post({ contents: { en: 'Flash sale' }, included_segments: ['All'] });
    await page.goto(`${api.url}/dashboard/sends/${id}`);
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));
    expect(await page.locator('#status').textContent()).to.equal('queued');
    sender = await startTestSender(env, sim); // delivery begins only once the page is open
    await page.locator('#status', { hasText: 'approved' }).waitFor({ timeout: 45_000 });
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).to.equal(42);
    expect(await page.locator('#sent').textContent()).to.equal('1,200');
    expect(await page.locator('#progress').getAttribute('value')).to.equal('100');
    expect((await page.locator('#chart-line').getAttribute('points'))!.split(' ').length).to.be.greaterThan(1);
    await shot('report');
  });

  it('composes a send recorded with source Dashboard, with errors next to the field', async () => {
    await page.goto(`${api.url}/dashboard/compose`);
    await page.getByRole('button', { name: 'Send' }).click();
    const contentsError = page.locator('#contents-errors');
    await contentsError.waitFor();
    expect(await contentsError.textContent()).to.contain('contents needs the message text in at least one language.');
    await page.getByLabel('Throttle (devices per minute, empty: none)').fill('abc');
    await page.locator('textarea[name="content_0"]').fill('Back in stock');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('#throttle-errors').waitFor();
    await shot('compose');
    await page.getByLabel('Throttle (devices per minute, empty: none)').fill('');
    await page.getByLabel('Send after (UTC, empty: now)').fill(new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 16));
    await page.getByRole('button', { name: 'Send' }).click();
    await page.waitForURL(/\/dashboard\/sends\/\d+$/);
    const id = Number(page.url().split('/').pop());
    await page.goto(`${api.url}/dashboard/?source=dashboard`);
    expect(await rowIds()).to.deep.equal([id]);
    expect(await page.locator('tbody tr td:nth-child(4)').textContent()).to.equal('Dashboard');
    expect((await rest('GET', `/api/v1/notifications/${id}`)).body).to.include({ source: 'dashboard', status: 'scheduled' });
  });

  it('cancels a scheduled send, and refuses a change without the CSRF token', async () => {
    const id = await post({ contents: { en: 'Tomorrow only' }, included_segments: ['All'], send_after: later() });
    const forged = await page.request.post(`${api.url}/dashboard/sends/${id}/cancel`, { form: { _csrf: 'x'.repeat(43) } });
    expect(forged.status()).to.equal(403);
    await page.goto(`${api.url}/dashboard/sends/${id}`);
    await page.getByRole('button', { name: 'Cancel this send' }).click();
    await page.locator('#status', { hasText: 'draft (canceled)' }).waitFor();
    expect(await page.getByRole('button', { name: 'Cancel this send' }).count()).to.equal(0);
    expect((await rest('GET', `/api/v1/notifications/${id}`)).body).to.include({ status: 'draft', canceled: true });
  });

  it("offers a read key neither compose nor cancel, and shows another app's send as not found", async () => {
    const id = await post({ contents: { en: 'Read only view' }, included_segments: ['All'], send_after: later() });
    await signOut();
    await page.waitForURL(/sign-in/);
    await signIn(readKey);
    await page.getByText('shop · read-only key').waitFor();
    expect(await page.getByRole('link', { name: 'New message' }).count()).to.equal(0);
    await page.goto(`${api.url}/dashboard/sends/${id}`);
    await page.locator('#status', { hasText: 'scheduled' }).waitFor();
    expect(await page.getByRole('button', { name: 'Cancel this send' }).count()).to.equal(0);
    expect((await page.goto(`${api.url}/dashboard/compose`))!.status()).to.equal(403);
    const other = await page.goto(`${api.url}/dashboard/sends/${otherSendId}`);
    expect(other!.status()).to.equal(404);
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
  });

  it('fits a phone-width screen', async () => {
    await page.goto(`${api.url}/dashboard/`);
    await shot('sends');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${api.url}/dashboard/`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).to.be.at.most(0);
    await shot('sends-phone');
  });
});
