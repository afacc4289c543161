// The events page (issue 28 point 5) in a real browser against a real api and the event
// dispatcher posting to a receiver in this test: a destination whose receiver answers 500 shows
// Retrying with the last error and its backlog, then Failing, then Delivering once the receiver
// takes the batch; the app's latest events a page at a time (the cursor's edges); an install's
// external id renders as text; a query in the destination's URL is not shown; one app sees
// neither another's destinations nor its events.
import { expect } from 'chai';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { launchBrowser, type TestBrowser } from '../support/browser.js';
import { waitFor } from '../support/wait.js';
import { createKey } from '../../core/apps/keys.js';
import { silentLogger } from '../../core/log.js';
import { storeDestinations } from '../../core/events/destinations.js';
import { startEventDispatcher, type EventDispatcher } from '../../core/events/dispatcher.js';
import { addDevices, createTestApp } from '../delivery/fixtures.js';

const SHOTS = process.env.HERALD_DASHBOARD_SCREENSHOTS;
const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

describe('dashboard events page in a browser', function () {
  this.timeout(60_000);
  const env = useTestEnv();
  const api = useTestApi(env);
  let browser: TestBrowser;
  let page: Page;
  let receiver: Server;
  let answer = 500;
  const bodies: string[] = [];
  let dispatcher: EventDispatcher;
  let appA: string;
  let appB: string;
  let keyA: string;
  let sendKeyA: string;
  let keyB: string;

  const signIn = async (key: string) => {
    await page.context().clearCookies();
    await page.goto(`${api.url}/dashboard/sign-in`);
    await page.getByLabel('REST API key of your app').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${api.url}/dashboard/`);
  };
  const later = () => new Date(Date.now() + 86_400_000).toISOString();
  const sendOf = async (appId: string, key: string, text: string) =>
    (await api.request('POST', '/api/v1/notifications', { key, body: { app_id: appId, contents: { en: text }, included_segments: ['All'], send_after: later() } })).body.id as number;
  const field = (destination: string, name: string) => page.locator(`section.destination[data-name="${destination}"] [data-field="${name}"]`).textContent();
  const row = async (appId: string, name: string) =>
    (await env.pool.query('SELECT attempts, last_error FROM event_destinations WHERE app_id = $1 AND name = $2', [appId, name])).rows[0];
  /** Steps the dispatcher (both apps' destinations share it) until `done` holds. */
  const dispatchUntil = (what: string, done: () => Promise<boolean>) =>
    waitFor(what, async () => {
      await dispatcher.step();
      return done();
    }, 20_000, 50);
  const kinds = () => page.locator('#events tbody tr').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.kind));

  before(async function () {
    this.timeout(180_000);
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c)).on('end', () => {
        bodies.push(body);
        res.writeHead(answer).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    appA = (await createTestApp(env.pool, 'eventshop')).app.id;
    appB = (await createTestApp(env.pool, 'eventother')).app.id;
    keyA = (await createKey(env.pool, appA, { scope: 'read' })).key; // the page is a read key's too
    sendKeyA = (await createKey(env.pool, appA)).key;
    keyB = (await createKey(env.pool, appB)).key;
    await storeDestinations(env.pool, appA, [{ name: 'backend', url: `${url}/hook?token=hidden-token`, secretRef: { name: 's', key: 'k' }, secret: SECRET }]);
    await storeDestinations(env.pool, appB, [{ name: 'other-hook', url: `${url}/other`, kinds: ['notification.created'], secretRef: { name: 's', key: 'k' }, secret: SECRET }]);
    // Steps by hand; a long back-off, so each failed attempt is the test's own step.
    dispatcher = startEventDispatcher({ pool: env.pool, logger: silentLogger(), httpHosts: ['127.0.0.1'], backoff: { baseMs: 600_000, maxMs: 600_000 } }, false);
    browser = await launchBrowser();
    page = await browser.context.newPage();
  });

  after(async () => {
    await dispatcher?.stop();
    await browser?.close();
    receiver?.closeAllConnections();
    await new Promise((r) => receiver?.close(r));
  });

  it('shows a destination whose receiver answers 500 as retrying with its last error and backlog, then failing, then delivering once it takes the batch', async () => {
    const sendA = await sendOf(appA, sendKeyA, 'Hello from A');
    await dispatchUntil('an attempt at A\'s destination answered 500', async () => (await row(appA, 'backend')).last_error === 'HTTP 500');
    expect(bodies.some((b) => b.includes('"notification.created"') && b.includes(`"id":"${sendA}"`))).to.equal(true);
    await signIn(keyA);
    await page.getByRole('link', { name: 'Events' }).click();
    await page.waitForURL(`${api.url}/dashboard/events`);
    expect(await field('backend', 'State')).to.equal('Retrying');
    expect(await field('backend', 'Last error')).to.equal('HTTP 500');
    expect(await field('backend', 'Failed attempts')).to.equal('1');
    expect(await field('backend', 'Backlog')).to.equal('1 record not yet delivered');
    expect(await field('backend', 'Kinds')).to.equal('every kind');
    // The receiver's URL without its query: a token there is not shown.
    expect(await field('backend', 'Where')).to.match(/^http:\/\/127\.0\.0\.1:\d+\/hook \(query not shown\)$/);
    expect(await page.content()).to.not.contain('hidden-token');
    // Five minutes of failures (health.ts's threshold) make it failing: stand in for them by its failing_since.
    await env.pool.query(`UPDATE event_destinations SET failing_since = now() - interval '6 minutes' WHERE app_id = $1`, [appA]);
    await page.reload();
    expect(await field('backend', 'State')).to.equal('Failing');
    expect(await field('backend', 'Last error')).to.equal('HTTP 500');
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'events.png'), fullPage: true });
    // The receiver takes the batch: delivered, nothing left, no error.
    answer = 204;
    await env.pool.query('UPDATE event_destinations SET retry_at = now() WHERE app_id = $1', [appA]);
    await dispatchUntil('A\'s destination delivered', async () => (await row(appA, 'backend')).attempts === 0);
    await page.reload();
    expect(await field('backend', 'State')).to.equal('Delivering');
    expect(await field('backend', 'Last error')).to.equal('—');
    expect(await field('backend', 'Backlog')).to.equal('none: up to date');
    // The latest events: the send's creation, linking to its report.
    expect(await kinds()).to.deep.equal(['notification.created']);
    expect(await page.locator('#events td[data-label="Send"] a').getAttribute('href')).to.equal(`/dashboard/sends/${sendA}`);
  });

  it('lists the latest events 50 a page, newest record first, with the cursor\'s edges; an external id renders as text', async () => {
    const [device] = await addDevices(env.pool, appA, 1, { prefix: 'ev', externalIdPrefix: '<script>window.pwned = 1</script>' });
    const install = (await env.pool.query<{ id: string }>('SELECT id::text FROM subscriptions WHERE token = $1', [device])).rows[0].id;
    const sent = [install, ...Array.from({ length: 58 }, () => randomUUID())];
    await env.pool.query(`INSERT INTO event_records (app_id, send_id, kind, body) VALUES ($1, 77, 'chunk', $2)`, [appA, JSON.stringify({ chunk: 0, s: sent, f: [[randomUUID(), 'BadDeviceToken']], u: [] })]);
    await page.goto(`${api.url}/dashboard/events`);
    // 60 events of the chunk (59 sent, 1 failed), then the older notification.created.
    expect(await kinds()).to.deep.equal(Array(50).fill('message.push.sent'));
    expect(await page.locator(`#events tr td[data-label="Install"] a[href="/dashboard/audience/installs/${install}"]`).count()).to.equal(1);
    expect(await page.locator('#events td[data-label="External id"]').first().textContent()).to.equal('<script>window.pwned = 1</script>1');
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).to.equal(undefined);
    await page.getByRole('link', { name: 'Older events' }).click();
    await page.waitForURL(/before=\d+&skip=50$/);
    expect(await kinds()).to.deep.equal([...Array(9).fill('message.push.sent'), 'message.push.failed', 'notification.created']);
    expect(await page.locator('#events td[data-label="Details"]').nth(9).textContent()).to.equal('reason: BadDeviceToken');
    expect(await page.getByRole('link', { name: 'Older events' }).count()).to.equal(0);
    await page.getByRole('link', { name: 'Newest' }).click();
    await page.waitForURL(`${api.url}/dashboard/events`);
    // The cursor's bounds: skip up to 100,000, a record id of digits; anything else a 400 naming it.
    const status = async (query: string) => (await page.request.get(`${api.url}/dashboard/events?${query}`)).status();
    expect(await status('before=1&skip=100000')).to.equal(200);
    expect(await status('before=1&skip=100001')).to.equal(400);
    expect(await status('before=abc')).to.equal(400);
    expect(await status('before=1&skip=-1')).to.equal(400);
    await page.goto(`${api.url}/dashboard/events?before=abc`);
    expect(await page.getByRole('alert').textContent()).to.equal('before must be a record id (a whole number).');
  });

  it("shows one app neither another's destinations nor its events", async () => {
    const sendB = await sendOf(appB, keyB, 'Hello from B');
    await dispatchUntil("B's event delivered", async () => bodies.some((b) => b.includes(`"id":"${sendB}"`)));
    await page.goto(`${api.url}/dashboard/events`);
    expect(await page.locator('section.destination').evaluateAll((s) => s.map((e) => (e as HTMLElement).dataset.name))).to.deep.equal(['backend']);
    expect(await page.locator(`#events a[href="/dashboard/sends/${sendB}"]`).count()).to.equal(0);
    await signIn(keyB);
    await page.goto(`${api.url}/dashboard/events`);
    expect(await page.locator('section.destination').evaluateAll((s) => s.map((e) => (e as HTMLElement).dataset.name))).to.deep.equal(['other-hook']);
    expect(await field('other-hook', 'Kinds')).to.equal('notification.created');
    expect(await kinds()).to.deep.equal(['notification.created']);
    expect(await page.locator('#events td[data-label="Send"] a').textContent()).to.equal(String(sendB));
    // An app with no destination says where they are named.
    const lone = (await createTestApp(env.pool, 'eventlone')).app.id;
    await signIn((await createKey(env.pool, lone)).key);
    await page.goto(`${api.url}/dashboard/events`);
    expect(await page.locator('#destinations').textContent()).to.equal("No destinations: name them in the App's spec.events.destinations (docs/events.md).");
  });
});
