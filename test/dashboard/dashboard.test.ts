// The dashboard in a real browser (Debian's Chromium, playwright-core) against a real api and
// sender on the test env's servers: sign in, list and filter, a running send watched to approved
// without a reload, compose (source Dashboard, errors next to the field), cancel a scheduled send,
// a read key offered neither compose nor cancel, another app's send not found, CSRF and cookie.
// HERALD_DASHBOARD_SCREENSHOTS=docs/dashboard writes the pages' screenshots for docs/dashboard.md.
import { expect } from 'chai';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { launchBrowser, type TestBrowser } from '../support/browser.js';
import { createKey } from '../../core/apps/keys.js';
import { zonedInstant } from '../../core/time/zone-clock.js';
import { startApnsSim, type ApnsSim } from '../../apns-sim/index.js';
import type { Sender } from '../../sender/index.js';
import { addDevices, createTestApp, startTestSender, type TestApp } from '../delivery/fixtures.js';

const SHOTS = process.env.HERALD_DASHBOARD_SCREENSHOTS;

describe('dashboard in a browser', function () {
  this.timeout(60_000);
  const env = useTestEnv();
  const api = useTestApi(env);
  let browser: TestBrowser;
  let page: Page;
  let sim: ApnsSim;
  let sender: Sender | undefined;
  let main: TestApp;
  let sendKey: string;
  let readKey: string;
  let otherSendId: number;

  const shot = async (name: string, fullPage = true) => {
    if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage });
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
  const rowIds = async () => (await page.locator('tbody tr').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.id))).map(Number);

  before(async function () {
    this.timeout(180_000);
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
    await page.goto(`${api.url}/dashboard/sends`);
    expect((await rowIds()).slice(0, 3)).to.deep.equal([k, b, a]);
    await page.getByLabel('Source').selectOption('kubernetes');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/source=kubernetes/);
    expect(await rowIds()).to.deep.equal([k]);
    await page.goto(`${api.url}/dashboard/sends?q=parcel&status=scheduled`);
    expect(await rowIds()).to.deep.equal([b]);
    const csv = await page.request.get(`${api.url}/dashboard/sends.csv?q=parcel`);
    expect(csv.headers()['content-type']).to.contain('text/csv');
    expect((await csv.text()).split('\r\n')[1]).to.match(new RegExp(`^${b},Your parcel left,scheduled,false,API,`));
  });

  it('shows name or title, audience and a status word, dates on one line, and opens a report from anywhere on the row', async () => {
    const named = await post({ name: 'Winter promo', contents: { en: 'Coats -20%' }, headings: { en: 'Shop' }, tag: { key: 'plan', relation: '=', value: 'gold' }, send_after: later() });
    const titled = await post({ contents: { en: 'Hello there' }, headings: { en: 'Welcome' }, include_external_ids: ['u1', 'u2', 'u3'], send_after: later() });
    await page.goto(`${api.url}/dashboard/sends`);
    const row = (id: number) => page.locator(`tbody tr[data-id="${id}"]`);
    expect(await row(named).locator('td.name').textContent()).to.equal('Winter promo');
    expect(await row(titled).locator('td.name').textContent()).to.equal('Welcome');
    expect(await row(named).locator('td.audience').textContent()).to.match(/^tag plan = gold /);
    expect(await row(titled).locator('td.audience').textContent()).to.equal('3 external ids (3)');
    expect(await row(named).locator('td:first-child').textContent()).to.equal('Coats -20%');
    expect(await row(named).locator('.status').textContent()).to.equal('Scheduled');
    // Each date is one line high: the cell's content (two dates) is two lines tall.
    const created = row(titled).locator('td.date');
    const [dateHeight, lineHeight] = await created.evaluate((td) => {
      const style = getComputedStyle(td);
      return [td.getBoundingClientRect().height - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom), parseFloat(style.lineHeight)];
    });
    expect(await created.textContent()).to.match(/^\d{4}-\d\d-\d\d\u00a0\d\d:\d\dfor \d{4}-\d\d-\d\d\u00a0\d\d:\d\d$/);
    expect(dateHeight).to.be.at.most(lineHeight * 2 + 2); // two dates, each on one line
    // A click where the row shows its sent count, far from the message's text, opens the report.
    const box = (await row(titled).locator('td[data-label="Sent"]').boundingBox())!;
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await page.waitForURL(`${api.url}/dashboard/sends/${titled}`);
    const icon = await page.request.get(`${api.url}${await page.locator('link[rel="icon"]').getAttribute('href')}`);
    expect(icon.status()).to.equal(200);
    expect(icon.headers()['content-type']).to.equal('image/svg+xml');
  });

  it('lists Live Activity pushes with their activity and event, and opens their report', async () => {
    const ended = Number((await rest('POST', `/api/v1/apps/${main.app.id}/live_activities/order-42/notifications`, { event: 'end', event_updates: { status: 'delivered' } })).body.id);
    const started = Number((await rest('POST', `/api/v1/apps/${main.app.id}/activities/activity/OrderAttributes`, {
      activity_id: 'order-43', event_attributes: { shop: 'A' }, event_updates: { status: 'packed' }, contents: { en: 'Your order is packed' }, include_external_ids: ['u1'],
    })).body.notification_id);
    await page.goto(`${api.url}/dashboard/sends`);
    const row = (id: number) => page.locator(`tbody tr[data-id="${id}"]`);
    expect(await row(ended).locator('td:first-child').textContent()).to.equal('(Live Activity end, no alert)');
    expect(await row(ended).locator('td.audience').textContent()).to.equal('Live Activity order-42 (end) (0)');
    expect(await row(started).locator('td:first-child').textContent()).to.equal('Your order is packed');
    expect(await row(started).locator('td.audience').textContent()).to.equal('Live Activity start OrderAttributes: 1 external id (1)');
    await row(started).locator('a.row-link').click();
    await page.waitForURL(`${api.url}/dashboard/sends/${started}`);
    expect(await page.locator('#audience').textContent()).to.equal('Live Activity start OrderAttributes: 1 external id');
  });

  it('shows a running send progress to approved without a reload', async () => {
    const id = await post({ contents: { en: 'Flash sale' }, included_segments: ['All'] });
    await page.goto(`${api.url}/dashboard/sends/${id}`);
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));
    expect(await page.locator('#status').textContent()).to.equal('Sending');
    sender = await startTestSender(env, sim); // delivery begins only once the page is open
    await page.locator('#status', { hasText: 'Delivered' }).waitFor({ timeout: 45_000 });
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).to.equal(42);
    expect(await page.locator('#sent').textContent()).to.equal('1,200');
    expect(await page.locator('#progress').getAttribute('value')).to.equal('100');
    expect(await page.locator('#progress-text').textContent()).to.equal('1,200 of 1,200 devices (100%)');
    // The chart (or, for a send done within a few seconds, its summary), swapped in live, with the
    // seconds its chunks were recorded in: they add up to the devices sent. (Their shapes: chart.test.ts.)
    await page.locator('#chart-note', { hasText: '1,200 devices sent' }).waitFor();
    const perSecond = await page.locator('#chart-box tbody tr td:nth-of-type(1)').allTextContents();
    expect(perSecond.reduce((sum, n) => sum + Number(n.replace(/,/g, '')), 0)).to.equal(1200);
    await shot('report');
  });

  it("shows a send's iOS options on its report", async () => {
    const id = await post({
      name: 'Restock', contents: { en: 'Back in stock' }, subtitle: { en: 'Size 42' }, ios_sound: 'chime.caf', ios_badgeType: 'Increase', ios_badgeCount: 2,
      ttl: 3600, ios_interruption_level: 'time_sensitive', included_segments: ['All'], send_after: later(),
    });
    await page.goto(`${api.url}/dashboard/sends/${id}`);
    const field = (name: string) => page.locator(`#ios dd[data-field="${name}"]`).textContent();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).to.equal(`Restock · send ${id}`);
    expect(await field('Subtitle')).to.equal('Size 42');
    expect(await field('Sound')).to.equal('chime.caf');
    expect(await field('Badge')).to.equal('increase by 2');
    expect(await field('Silent push')).to.equal('no');
    expect(await field('Time to live')).to.equal('3,600 s');
    expect(await field('Interruption level')).to.equal('time sensitive');
    expect(await page.locator('#audience').textContent()).to.equal('Subscribed Users'); // 'All' is its older name
    const silent = await post({ content_available: true, included_segments: ['All'], send_after: later() });
    await page.goto(`${api.url}/dashboard/sends/${silent}`);
    expect(await field('Silent push')).to.equal('yes (background, content-available)');
    expect(await field('Time to live')).to.equal('3 days (default)');
    expect(await field('Sound')).to.equal('none (background push)');
    // A VoIP push (issue 29) shows nothing and plays nothing: the report says so, not the alert's defaults.
    const voip = await post({ apns_push_type_override: 'voip', data: { call: 'c-1' }, included_segments: ['All'], send_after: later() });
    await page.goto(`${api.url}/dashboard/sends/${voip}`);
    expect(await field('Push type')).to.equal('voip');
    expect(await field('Sound')).to.equal('none (voip push)');
    expect(await field('Badge')).to.equal('none (voip push)');
    expect(await field('Silent push')).to.equal('no alert (voip push, to the voip token)');
    expect(await field('Interruption level')).to.equal('none (voip push)');
  });

  it('composes a send: only the chosen target\'s fields, errors next to the field, a live preview, the review with its estimate as the one confirmation, the time in a chosen zone and the iOS fields', async () => {
    await page.goto(`${api.url}/dashboard/compose`);
    // Only the chosen target's fields are shown.
    const segment = page.locator('fieldset.target-segment');
    const tagKey = page.locator('input[name="tag_key"]');
    const ids = page.locator('textarea[name="ids"]');
    expect([await segment.isVisible(), await tagKey.isVisible(), await ids.isVisible()]).to.deep.equal([true, false, false]);
    await page.getByLabel('Send to').selectOption('tag');
    expect([await segment.isVisible(), await tagKey.isVisible(), await ids.isVisible()]).to.deep.equal([false, true, false]);
    await page.getByLabel('Send to').selectOption('external_ids');
    expect([await segment.isVisible(), await tagKey.isVisible(), await ids.isVisible()]).to.deep.equal([false, false, true]);
    await page.getByLabel('Send to').selectOption('segment');
    // The estimate follows the audience fields (core/audience's count, asked by the script).
    await page.locator('#live-estimate', { hasText: 'Estimate: 1,200 devices now.' }).waitFor();
    await page.getByLabel('Send to').selectOption('tag');
    await page.locator('input[name="tag_key"]').fill('plan');
    await page.locator('select[name="tag_relation"]').selectOption('exists');
    await page.locator('#live-estimate', { hasText: 'Estimate: 0 devices now.' }).waitFor();
    await page.getByLabel('Send to').selectOption('segment');
    await page.locator('#live-estimate', { hasText: 'Estimate: 1,200 devices' }).waitFor();
    const refused = await page.request.get(`${api.url}/dashboard/compose/estimate.json?target=segment&segment=Nobody`);
    expect(refused.status()).to.equal(422);
    expect((await refused.json()).errors.join(' ')).to.contain('Nobody');
    // Languages come from a list.
    expect(await page.locator('select[name="lang_0"] option:checked').textContent()).to.equal('English (en)');
    expect(await page.locator('select[name="lang_1"] option').count()).to.be.greaterThan(40);

    await page.getByRole('button', { name: 'Review' }).click();
    const contentsError = page.locator('#contents-errors');
    await contentsError.waitFor();
    expect(await contentsError.textContent()).to.contain('contents needs the message text in at least one language.');
    await page.getByLabel('Throttle (devices per minute, empty: none)').fill('abc');
    await page.locator('textarea[name="content_0"]').fill('Back in stock');
    await page.getByRole('button', { name: 'Review' }).click();
    await page.locator('#throttle-errors').waitFor();
    await page.getByLabel('Throttle (devices per minute, empty: none)').fill('');

    // The preview follows the typing.
    await page.locator('input[name="heading_0"]').fill('Shop');
    await page.locator('input[name="subtitle_0"]').fill('Size 42 is back');
    await page.locator('textarea[name="content_0"]').fill('Your sneakers are back in stock. Tap to order before they go again.');
    expect(await page.locator('#preview [data-preview="heading"]').textContent()).to.equal('Shop');
    expect(await page.locator('#preview [data-preview="subtitle"]').textContent()).to.equal('Size 42 is back');
    expect(await page.locator('#preview .app').textContent()).to.equal('shop');

    await page.getByLabel('Name (internal, never shown to users)').fill('Sneaker restock');
    await page.getByLabel('Sound (a file of the app, empty: default)').fill('chime.caf');
    await page.locator('select[name="ios_badgeType"]').selectOption('Increase');
    await page.getByLabel('Badge count').fill('1');
    await page.getByLabel(/^Time to live/).fill('3600');
    await page.getByLabel('Interruption level').selectOption('time_sensitive');
    const day = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);
    await page.getByLabel('Send at (empty: now)').fill(`${day}T09:00`);
    await page.getByLabel('Time zone').selectOption('Europe/Paris');
    const [y, m, d] = day.split('-').map(Number);
    const at = zonedInstant({ zone: 'Europe/Paris' }, y, m, d, 9, 0);
    await page.getByRole('button', { name: 'Review' }).click();
    // Edit goes back to the form with every value kept (and the old sentence gone).
    await page.getByRole('button', { name: 'Edit' }).click();
    expect(await page.locator('#throttle-errors').count()).to.equal(0);
    expect(await page.getByLabel('Time zone').inputValue()).to.equal('Europe/Paris');
    expect(await page.locator('#preview [data-preview="subtitle"]').textContent()).to.equal('Size 42 is back');
    await shot('compose');
    await page.getByRole('button', { name: 'Review' }).click();

    // The review: audience, its estimate (core/audience), the time in UTC and in the zone, the preview.
    await page.getByRole('heading', { name: 'Review the message' }).waitFor();
    expect(await page.locator('#estimate').textContent()).to.equal('1,200 devices');
    expect(await page.locator('#when').textContent()).to.equal(`${at.toISOString().slice(0, 16).replace('T', '\u00a0')}\u00a0UTC (${day} 09:00 Europe/Paris)`);
    expect(await page.locator('#preview [data-preview="subtitle"]').textContent()).to.equal('Size 42 is back');
    await shot('compose-review');
    // Review is the one confirmation: no box to tick, the button names how many devices it reaches.
    expect(await page.locator('form.review input[type="checkbox"]').count()).to.equal(0);
    expect((await rest('GET', '/api/v1/notifications?limit=50')).body.notifications.filter((n: { source: string }) => n.source === 'dashboard')).to.have.length(0);
    await page.getByRole('button', { name: 'Send to 1,200 devices' }).click();
    await page.waitForURL(/\/dashboard\/sends\/\d+$/);
    const id = Number(page.url().split('/').pop());
    expect(await page.locator('#ios dd[data-field="Badge"]').textContent()).to.equal('increase by 1');
    expect(await page.locator('#ios dd[data-field="Subtitle"]').textContent()).to.equal('Size 42 is back');
    const sent = (await rest('GET', `/api/v1/notifications/${id}`)).body;
    expect(sent).to.include({ source: 'dashboard', status: 'scheduled', name: 'Sneaker restock', send_after: at.getTime() / 1000 });
    const [row] = (await env.pool.query(`SELECT request->'apns' AS apns FROM sends WHERE id = $1`, [id])).rows;
    expect(row.apns).to.deep.equal({ sound: 'chime.caf', badgeType: 'Increase', badgeCount: 1, ttlSeconds: 3600, interruptionLevel: 'time_sensitive' });
    await page.goto(`${api.url}/dashboard/sends?source=dashboard`);
    expect(await rowIds()).to.deep.equal([id]);
    expect(await page.locator('tbody tr td[data-label="Source"]').textContent()).to.equal('Dashboard');
  });

  it('composes a silent push to a few ids, and Edit keeps the values', async () => {
    await page.goto(`${api.url}/dashboard/compose`);
    await page.getByLabel('Send to').selectOption('subscription_ids');
    const devices = (await env.pool.query(`SELECT id FROM subscriptions WHERE app_id = $1 ORDER BY seq LIMIT 2`, [main.app.id])).rows.map((r) => r.id as string);
    await page.getByLabel('Ids (one per line, up to 500)').fill(devices.join('\n'));
    await page.getByLabel('Silent push (wakes the app in the background, shows nothing)').check();
    expect(await page.locator('#preview .silent-note').isVisible()).to.equal(true);
    await page.getByRole('button', { name: 'Review' }).click();
    expect(await page.locator('#estimate').textContent()).to.equal('2 devices');
    await page.getByRole('button', { name: 'Edit' }).click();
    expect(await page.getByLabel('Ids (one per line, up to 500)').inputValue()).to.equal(devices.join('\n'));
    await page.getByLabel('Send at (empty: now)').fill(new Date(Date.now() + 86_400_000).toISOString().slice(0, 16));
    await page.getByRole('button', { name: 'Review' }).click();
    await page.getByRole('button', { name: 'Send to 2 devices' }).click();
    await page.waitForURL(/\/dashboard\/sends\/\d+$/);
    expect(await page.locator('#ios dd[data-field="Silent push"]').textContent()).to.equal('yes (background, content-available)');
  });

  it('cancels a scheduled send, and refuses a change without the CSRF token', async () => {
    const id = await post({ contents: { en: 'Tomorrow only' }, included_segments: ['All'], send_after: later() });
    const forged = await page.request.post(`${api.url}/dashboard/sends/${id}/cancel`, { form: { _csrf: 'x'.repeat(43) } });
    expect(forged.status()).to.equal(403);
    await page.goto(`${api.url}/dashboard/sends/${id}`);
    // Cancel asks first; "No, keep it" changes nothing.
    await page.getByRole('link', { name: 'Cancel this send…' }).click();
    await page.getByRole('heading', { name: `Cancel send ${id}?` }).waitFor();
    expect(await page.locator('main').textContent()).to.contain('none of its 1,200 devices will receive it');
    await page.getByRole('link', { name: 'No, keep it' }).click();
    await page.locator('#status', { hasText: 'Scheduled' }).waitFor();
    expect((await rest('GET', `/api/v1/notifications/${id}`)).body).to.include({ status: 'scheduled', canceled: false });
    await page.getByRole('link', { name: 'Cancel this send…' }).click();
    await page.getByRole('button', { name: 'Yes, cancel this send' }).click();
    await page.locator('#status', { hasText: 'Canceled' }).waitFor();
    // Delivered of the audience: a canceled send is not 100 %.
    expect(await page.locator('#progress-text').textContent()).to.equal('0 of 1,200 devices (0%)');
    expect(await page.locator('#progress').getAttribute('value')).to.equal('0');
    expect(await page.getByRole('link', { name: 'Cancel this send…' }).count()).to.equal(0);
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
    await page.locator('#status', { hasText: 'Scheduled' }).waitFor();
    expect(await page.getByRole('link', { name: 'Cancel this send…' }).count()).to.equal(0);
    expect((await page.goto(`${api.url}/dashboard/sends/${id}/cancel`))!.status()).to.equal(403);
    expect((await page.goto(`${api.url}/dashboard/compose`))!.status()).to.equal(403);
    expect((await page.request.get(`${api.url}/dashboard/compose/estimate.json?target=segment&segment=All`)).status()).to.equal(403);
    const other = await page.goto(`${api.url}/dashboard/sends/${otherSendId}`);
    expect(other!.status()).to.equal(404);
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
  });

  it('fits a phone-width screen', async () => {
    await page.goto(`${api.url}/dashboard/sends`);
    await shot('sends');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${api.url}/dashboard/sends`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).to.be.at.most(0);
    await shot('sends-phone', false); // the first screen: a phone's view
  });
});
