// The overview in a real browser against a real api, sender and APNs simulator (issue 40 point 1):
// a day with known sends, failures and opens gives those figures in each chart's table and in the
// tiles; the reachable devices tell apart the installs the app unsubscribed and those Apple or
// Google did, and each platform's;
// the range picker changes the buckets; another app's sends are never counted.
import { expect } from 'chai';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { useTestEnv } from '../env/index.js';
import { signedInBrowser, type TestBrowser } from '../support/browser.js';
import { seedSend } from '../support/seed-sends.js';
import { addDevices, createTestApp, startDeliveryStack, waitFinal, type DeliveryStack } from '../delivery/fixtures.js';
import { runOverviewDuties } from '../../core/overview/duties.js';
import { countAppDevices } from '../../core/overview/device-counts.js';

const SHOTS = process.env.HERALD_DASHBOARD_SCREENSHOTS;

describe('dashboard: the overview', function () {
  this.timeout(90_000);
  const env = useTestEnv();
  let stack: DeliveryStack;
  let browser: TestBrowser;
  let page: Page;
  let appId: string;

  /** The rows of a chart's table view: [label, ...cells]. */
  const table = (id: string) => page.locator(`#${id}-table tbody tr`).evaluateAll((rows) => rows.map((r) => [...r.children].map((c) => c.textContent)));
  const tile = async (id: string) => page.locator(`#${id} strong`).textContent();
  const today = () => new Date().toISOString().slice(0, 10);

  before(async function () {
    this.timeout(180_000);
    stack = await startDeliveryStack(env, 'ovshop', { rules: [{ prefix: 'bad0', status: 400 }, { prefix: 'dead', status: 410 }] });
    appId = stack.app.app.id;
    const good = await addDevices(env.pool, appId, 6, { prefix: 'a0' });
    await addDevices(env.pool, appId, 2, { prefix: 'bad0' });
    await addDevices(env.pool, appId, 1, { prefix: 'dead' });
    // Two installs the app's SDK turns off (the app's own unsubscribe).
    const off = await addDevices(env.pool, appId, 2, { prefix: 'a1' });
    const idOf = async (token: string) => (await env.pool.query<{ id: string }>('SELECT id FROM subscriptions WHERE token = $1', [token])).rows[0].id;
    for (const t of off) {
      const res = await stack.api.request('PATCH', `/api/v1/apps/${appId}/subscriptions/${await idOf(t)}`, { body: { subscribed: false } });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
    }
    // Today: one send to the 9 subscribed: 6 sent, 2 BadDeviceToken, 1 Unregistered (both unsubscribe); 3 opens.
    const sent = await stack.api.request('POST', '/api/v1/notifications', { key: stack.key, body: { app_id: appId, contents: { en: 'Today' }, included_segments: ['Subscribed Users'] } });
    expect((await waitFinal(env.pool, sent.body.id)).final).to.include({ sent: 6, failed: 3 });
    for (const t of good.slice(0, 3)) {
      const opened = await stack.api.request('POST', `/api/v1/notifications/${sent.body.id}/opened`, { body: { app_id: appId, subscription_id: await idOf(t) } });
      expect(opened.status).to.equal(200);
    }
    // Android installs beside them (subscriptions.platform, issue 39): 2 reachable, 1 Google refused.
    const droids = await addDevices(env.pool, appId, 3, { prefix: 'c0' });
    await env.pool.query(`UPDATE subscriptions SET platform = 'android' WHERE app_id = $1 AND token = ANY($2)`, [appId, droids]);
    await env.pool.query(`UPDATE subscriptions SET subscribed = false, unsubscribed_reason = 'UNREGISTERED' WHERE app_id = $1 AND token = $2`, [appId, droids[0]]);
    // Two days ago: 40 sent, 10 opened. Another app's sends the same days are not this app's.
    await seedSend(env.pool, appId, { at: new Date(Date.now() - 2 * 86_400_000), sent: 40, clicked: 10 });
    const other = await createTestApp(env.pool, 'ovelsewhere');
    // Finished a second ago, as if just delivered (the duty looks at sends finished since its mark).
    await seedSend(env.pool, other.app.id, { at: new Date(Date.now() - 61_000), sent: 500, failed: 50, reasons: [Array(50).fill('BadTopic')] });
    // What the scheduler's leader does once a minute: failure reasons, and the device counts that
    // are due (the sender's own scheduler may have counted this app minutes ago: counted again now).
    await runOverviewDuties(env.pool, { stop: () => false });
    await countAppDevices(env.pool, appId, new Date());
    ({ browser, page } = await signedInBrowser(stack.api.url, stack.key));
  });

  after(async () => {
    await browser?.close();
    await stack?.close();
  });

  it('is the first page after sign-in: devices now, the app, Apple and Google told apart, each platform, and their last 30 days', async () => {
    expect(await page.locator('h1').textContent()).to.equal('Overview');
    expect(await page.locator('nav[aria-label="Main"] a[aria-current="page"]').textContent()).to.equal('Overview');
    expect([await tile('reachable'), await tile('unsubscribed-app'), await tile('unsubscribed-apple'), await tile('unsubscribed-google')]).to.deep.equal(['8', '2', '3', '1']);
    expect([await tile('reachable-ios'), await tile('reachable-android')]).to.deep.equal(['6', '2']);
    const days = await table('devices-chart');
    expect(days).to.have.length(30);
    expect(days.at(-1)).to.deep.equal([today(), '8', '2', '4']);
    expect(days[0].slice(1)).to.deep.equal(['—', '—', '—']); // not counted that day
    expect(await page.locator('#devices-chart-table thead th').allTextContents()).to.include('Unsubscribed by Apple or Google');
    const platforms = await table('platforms-chart');
    expect(platforms.at(-1)).to.deep.equal([today(), '6', '2']);
    expect(await page.locator('#platforms-chart-table thead th').allTextContents()).to.include.members(['iOS', 'Android']);
    expect(await page.locator('#devices-chart svg').getAttribute('aria-label')).to.match(/^Devices by state at the end of each day, last 30 days/);
    // Both axes are named.
    expect(await page.locator('#devices-chart .axis-title').allTextContents()).to.deep.equal(['Day (UTC)', 'Devices']);
  });

  it("gives the range's sends, devices sent, failed and opened, the open rate and the failure reasons, each in a chart and its table", async () => {
    expect([await tile('total-sends'), await tile('total-sent'), await tile('total-failed'), await tile('total-opened'), await tile('open-rate')])
      .to.deep.equal(['2', '46', '3', '13', '28.3%']);
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
    const sends = await table('sends-chart');
    expect(sends.map((r) => r[0])).to.have.length(7);
    expect(sends.at(-1)).to.deep.equal([today(), '1']);
    expect(sends.find((r) => r[0] === twoDaysAgo)).to.deep.equal([twoDaysAgo, '1']);
    const delivery = await table('delivery-chart');
    expect(delivery.at(-1)).to.deep.equal([today(), '6', '3', '3']);
    expect(delivery.find((r) => r[0] === twoDaysAgo)).to.deep.equal([twoDaysAgo, '40', '0', '10']);
    const rates = await table('open-rate-chart');
    expect(rates.at(-1)).to.deep.equal([today(), '50.0%']);
    expect(rates.find((r) => r[0] === twoDaysAgo)).to.deep.equal([twoDaysAgo, '25.0%']);
    expect(rates[0][1]).to.equal('—'); // nothing sent: no rate
    expect(await table('reasons-chart')).to.deep.equal([['BadDeviceToken', '2'], ['Unregistered', '1']]);
    expect(await page.locator('#delivery-chart .axis-title').allTextContents()).to.deep.equal(['Day the sends started (UTC)', 'Devices']);
    expect(await page.locator('#reasons-chart .axis-title').allTextContents()).to.deep.equal(['Failed devices', 'Reason']);
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'overview.png'), fullPage: true });
  });

  it('changes the buckets with the range picker (24 hours by the hour, 30 days), and refuses any other range', async () => {
    await page.getByRole('navigation', { name: 'Range' }).getByRole('link', { name: '24 h' }).click();
    await page.waitForURL(/range=24h$/);
    const hours = await table('sends-chart');
    expect(hours).to.have.length(24);
    expect(hours.at(-1)![0]).to.match(new RegExp(`^${today()} \\d\\d:00 UTC$`));
    expect(await tile('total-sends')).to.equal('1');
    expect(await tile('total-sent')).to.equal('6');
    await page.goto(`${stack.api.url}/dashboard/?range=30d`);
    expect(await table('sends-chart')).to.have.length(30);
    expect(await tile('total-sent')).to.equal('46');
    const bad = await page.request.get(`${stack.api.url}/dashboard/?range=1y`);
    expect(bad.status()).to.equal(400);
    expect(await bad.text()).to.contain('range must be one of 24h, 7d, 30d.');
  });
});
