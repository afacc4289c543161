// The audience pages in a real browser (Debian's Chromium, playwright-core) against a real api:
// find an install by subscription id, external id, token prefix or tag typed into one box (the
// select only narrows it); one install's page (tags,
// language, time zone, subscribed or not, the sends it was in); segments with their sizes (kept
// 30 s). A read key sees them, nothing there changes an install, one app never sees another's,
// inputs are bounded, and each search is served by an index (EXPLAIN on 20,000 installs).
// HERALD_DASHBOARD_SCREENSHOTS=docs/dashboard writes the pages' screenshots for docs/dashboard.md.
import { expect } from 'chai';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { launchBrowser, type TestBrowser } from '../support/browser.js';
import { createKey } from '../../core/apps/keys.js';
import { findInstallsQuery, parseFind } from '../../core/subscriptions/find.js';
import { addDevices, createTestApp, type TestApp } from '../delivery/fixtures.js';

const SHOTS = process.env.HERALD_DASHBOARD_SCREENSHOTS;

describe('dashboard audience pages in a browser', function () {
  this.timeout(60_000);
  const env = useTestEnv();
  const api = useTestApi(env, () => ({ now: () => new Date(Date.now() + clockOffset) }));
  let browser: TestBrowser;
  let page: Page;
  let main: TestApp;
  let other: TestApp;
  let sendKey: string;
  let readKey: string;
  let clockOffset = 0; // the api's clock, moved past a kept size instead of waiting
  const ids = async (appId: string, where: string) =>
    (await env.pool.query(`SELECT id FROM subscriptions WHERE app_id = $1 AND ${where} ORDER BY seq`, [appId])).rows.map((r) => r.id as string);
  const rowIds = () => page.locator('tbody tr').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.id));
  const find = async (by: string, q: string) => {
    const res = await page.goto(`${api.url}/dashboard/audience?${new URLSearchParams({ by, q })}`);
    return res!.status();
  };
  const shot = async (name: string) => {
    if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  };

  before(async function () {
    this.timeout(180_000);
    main = await createTestApp(env.pool, 'shop', { segments: [{ name: 'VIP', conditions: [{ key: 'plan', relation: '=', value: 'gold' }] }] });
    other = await createTestApp(env.pool, 'elsewhere');
    sendKey = (await createKey(env.pool, main.app.id, { name: 'ops', scope: 'send' })).key;
    readKey = (await createKey(env.pool, main.app.id, { name: 'viewer', scope: 'read' })).key;
    await addDevices(env.pool, main.app.id, 30, { prefix: 'a1', tags: { plan: 'silver' } });
    await addDevices(env.pool, main.app.id, 5, { prefix: 'b2', tags: { plan: 'gold', city: 'Lyon' }, language: 'fr', externalIdPrefix: 'vip-' });
    await env.pool.query(`UPDATE subscriptions SET timezone = 'Europe/Paris' WHERE app_id = $1 AND external_id = 'vip-1'`, [main.app.id]);
    await addDevices(env.pool, main.app.id, 1, { prefix: 'c3', tags: { plan: 'gold' } });
    await env.pool.query(`UPDATE subscriptions SET subscribed = false WHERE app_id = $1 AND token LIKE 'c3%'`, [main.app.id]);
    // Another app with the same token prefix, external id and tag: never shown to this app.
    await addDevices(env.pool, other.app.id, 3, { prefix: 'b2', tags: { plan: 'gold' }, externalIdPrefix: 'vip-' });
    browser = await launchBrowser();
    page = await browser.context.newPage();
    await page.goto(`${api.url}/dashboard/sign-in`);
    await page.getByLabel('REST API key of your app').fill(readKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${api.url}/dashboard/`);
  });

  after(async () => {
    await browser?.close();
  });

  it('finds installs by token prefix, external id, tag and subscription id, only in the signed-in app', async () => {
    await page.getByRole('link', { name: 'Audience' }).click();
    await page.getByRole('heading', { name: 'Audience' }).waitFor();
    await page.getByLabel('Find by').selectOption('token');
    await page.getByLabel('Look for').fill('B2000'); // any case: tokens are kept in lowercase
    await page.getByRole('button', { name: 'Find' }).click();
    await page.waitForURL(/by=token/);
    const gold = await ids(main.app.id, `token LIKE 'b2%'`);
    expect((await rowIds()).sort()).to.deep.equal([...gold].sort());
    await shot('audience-find');
    expect(await find('token', 'a1000')).to.equal(200);
    expect(await rowIds()).to.have.length(30);
    expect(await find('external_id', 'vip-1')).to.equal(200);
    expect(await rowIds()).to.deep.equal(await ids(main.app.id, `external_id = 'vip-1'`));
    expect(await find('tag', 'plan=gold')).to.equal(200);
    expect((await rowIds()).sort()).to.deep.equal((await ids(main.app.id, `tags->>'plan' = 'gold'`)).sort());
    expect(await find('tag', ' city =Lyon')).to.equal(200);
    expect(await rowIds()).to.have.length(5);
    // The key is trimmed, the value kept as typed: a value stored with a space is found with it.
    const [spaced] = await ids(main.app.id, `token LIKE 'a1%'`);
    await env.pool.query(`UPDATE subscriptions SET tags = tags || '{"city": " Lyon"}' WHERE id = $1`, [spaced]);
    expect(await find('tag', 'city= Lyon')).to.equal(200);
    expect(await rowIds()).to.deep.equal([spaced]);
    expect(await find('subscription_id', gold[0].toUpperCase())).to.equal(200);
    expect(await rowIds()).to.deep.equal([gold[0]]);
    const theirs = (await ids(other.app.id, 'true'))[0];
    expect(await find('subscription_id', theirs)).to.equal(200);
    await page.getByText('No install matches.').waitFor();
    // A click anywhere on a row opens the install's page.
    await find('external_id', 'vip-1');
    const box = (await page.locator('tbody tr td[data-label="Language"]').boundingBox())!;
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await page.waitForURL(/\/dashboard\/audience\/installs\//);
  });

  it('finds what is typed into the one box and sent with Enter: an external id, a subscription id, a token prefix, a tag', async () => {
    const [vip] = await ids(main.app.id, `external_id = 'vip-2'`);
    const gold = await ids(main.app.id, `token LIKE 'b2%'`);
    const goldOrSpaced = await ids(main.app.id, `tags->>'plan' = 'gold'`);
    // An app whose external ids are UUIDs or hex digits: typed, they are found as external ids too.
    const [uuidUser, hexUser] = await ids(main.app.id, `token LIKE 'a1%'`);
    await env.pool.query(`UPDATE subscriptions SET external_id = $2 WHERE id = $1`, [uuidUser, vip]);
    await env.pool.query(`UPDATE subscriptions SET external_id = 'cafe42' WHERE id = $1`, [hexUser]);
    const typed = async (text: string) => {
      await page.goto(`${api.url}/dashboard/audience`);
      expect(await page.getByLabel('Find by').inputValue(), 'the select is a refinement, any by default').to.equal('any');
      await page.getByLabel('Look for').fill(text);
      await page.getByLabel('Look for').press('Enter');
      await page.waitForURL(/q=/);
      await page.locator('#looked-for').waitFor();
      return (await rowIds()).sort();
    };
    try {
      expect(await typed('vip-2')).to.deep.equal([vip]);
      expect(await page.locator('#looked-for').textContent()).to.equal('Looked for an external id.');
      expect(await typed(vip), 'the install, and the one whose external id is that UUID').to.deep.equal([vip, uuidUser].sort());
      expect(await typed('B2000')).to.deep.equal([...gold].sort());
      expect(await page.locator('#looked-for').textContent()).to.equal('Looked for an external id or a token prefix.');
      expect(await typed('plan=gold')).to.deep.equal([...goldOrSpaced].sort());
      expect(await typed(' city =Lyon')).to.have.length(5);
      expect(await typed('cafe42')).to.deep.equal([hexUser]);
      await page.getByLabel('Look for').fill('vip-3');
      await page.getByLabel('Find by').selectOption('token');
      await page.getByLabel('Look for').press('Enter');
      expect(await page.locator('#find-errors').textContent(), 'narrowed to tokens, vip-3 is none').to.equal('A token prefix is 4 to 200 hex digits (0-9, a-f) for an iOS install, or 8 to 256 characters of A-Z, a-z, 0-9, _, :, . and - for an Android one.');
    } finally {
      await env.pool.query(`UPDATE subscriptions SET external_id = NULL WHERE id = ANY($1::uuid[])`, [[uuidUser, hexUser]]);
    }
  });

  it('refuses unbounded or malformed searches with a sentence naming what is accepted', async () => {
    const error = () => page.locator('#find-errors').textContent();
    expect(await find('token', 'xyz')).to.equal(400);
    expect(await error()).to.equal('A token prefix is 4 to 200 hex digits (0-9, a-f) for an iOS install, or 8 to 256 characters of A-Z, a-z, 0-9, _, :, . and - for an Android one.');
    expect(await find('token', 'b')).to.equal(400);
    expect(await find('subscription_id', 'not-a-uuid')).to.equal(400);
    expect(await error()).to.contain('A subscription id is a UUID');
    expect(await find('tag', 'plan')).to.equal(400);
    expect(await error()).to.equal('A tag is key=value, such as plan=gold.');
    expect(await find('external_id', 'x'.repeat(300))).to.equal(400);
    expect(await error()).to.equal('q is longer than 256 characters.');
    expect(await find('any', 'x'.repeat(257))).to.equal(400);
    expect(await error()).to.equal('q is longer than 256 characters.');
    expect(await find('tag', 'plan=go\u0000ld')).to.equal(400);
    expect(await error()).to.equal('q contains U+0000 (a NUL character), which cannot be stored.');
    expect(await find('external_id', 'vip-\u0000')).to.equal(400);
    expect(await find('any', 'vip-\u0000')).to.equal(400);
    expect(await error()).to.equal('q contains U+0000 (a NUL character), which cannot be stored.');
    expect(await find('name', 'bob')).to.equal(400);
    expect(await error()).to.equal('by is one of any, subscription_id, external_id, token, tag.');
  });

  it("lists the built-in segments and the App's with their sizes, each kept 30 s", async () => {
    await page.goto(`${api.url}/dashboard/audience/segments`);
    const size = (name: string) => page.locator(`#segments tr[data-name="${name}"] .size`).textContent();
    expect(await size('Subscribed Users')).to.equal('35');
    expect(await size('Active Users')).to.equal('35');
    expect(await size('Inactive Users')).to.equal('0');
    expect(await size('VIP')).to.equal('5');
    expect(await page.locator('#sizes-note').textContent()).to.contain('may be up to 30 s old');
    await addDevices(env.pool, main.app.id, 2, { prefix: 'd4', tags: { plan: 'gold' } });
    await page.reload();
    expect(await size('VIP'), 'kept: a reload does not count again').to.equal('5');
    clockOffset += 30_000;
    await page.reload();
    expect(await size('VIP')).to.equal('7');
    await shot('segments');
  });

  it("shows one install: tags, language, time zone, subscription, registration and the sends it was in; another app's is not found", async () => {
    const post = async (body: Record<string, unknown>) =>
      (await api.request('POST', '/api/v1/notifications', { key: sendKey, body: { app_id: main.app.id, ...body } })).body.id as number;
    const vipSend = await post({ contents: { en: 'Gold members first' }, included_segments: ['VIP'] });
    const listSend = await post({ contents: { en: 'Your order shipped' }, include_external_ids: ['vip-1'] });
    const silverSend = await post({ contents: { en: 'Silver perks' }, tag: { key: 'plan', relation: '=', value: 'silver' } });
    const scheduled = await post({ contents: { en: 'Tomorrow' }, included_segments: ['VIP'], send_after: new Date(Date.now() + 86_400_000).toISOString() });
    // A draft was never sent (no credentials then, or its segment was removed before it fired): no one was in it.
    const draft = await post({ contents: { en: 'Never sent' }, included_segments: ['VIP'] });
    await env.pool.query(`UPDATE sends SET status = 'draft' WHERE id = $1`, [draft]);
    const [vip] = await ids(main.app.id, `external_id = 'vip-1'`);
    const before = (await env.pool.query(`SELECT to_jsonb(s) AS row FROM subscriptions s WHERE app_id = $1`, [main.app.id])).rows;

    await page.goto(`${api.url}/dashboard/audience/installs/${vip}`);
    expect(await page.locator('#subscription').textContent()).to.equal('Subscribed: it receives pushes.');
    const field = (name: string) => page.locator('#install div', { has: page.locator('dt', { hasText: name }) }).locator('dd').textContent();
    expect(await field('External id')).to.equal('vip-1');
    expect(await field('Language')).to.equal('fr');
    expect(await field('Time zone')).to.equal('Europe/Paris');
    expect(await field('Token')).to.match(/^b2000000000000000000…0001$|^b2[0-9a-f]{14}…[0-9a-f]{4}$/);
    expect(await field('Last registration')).to.match(/^\d{4}-\d\d-\d\d\u00a0\d\d:\d\d\u00a0UTC$/);
    expect(await page.locator('#tags tbody tr').allTextContents()).to.deep.equal(['cityLyon', 'plangold']);
    const sendIds = (await page.locator('#sends tbody tr').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.id))).map(Number);
    expect(sendIds).to.deep.equal([listSend, vipSend]);
    expect(sendIds).to.not.include(silverSend).and.not.include(scheduled).and.not.include(draft);
    await shot('install');
    // Nothing on the page changes an install: no form posts, and visiting changed no row.
    expect(await page.locator('main form[method="post"]').count()).to.equal(0);
    const posted = await page.request.post(`${api.url}/dashboard/audience/installs/${vip}`, { form: {} });
    expect(posted.status()).to.be.oneOf([404, 405]);
    const after = (await env.pool.query(`SELECT to_jsonb(s) AS row FROM subscriptions s WHERE app_id = $1`, [main.app.id])).rows;
    expect(after).to.deep.equal(before);
    // A segment since removed from the App: its sends can no longer be checked, and are left out.
    await env.pool.query(`UPDATE apps SET segments = '[]' WHERE id = $1`, [main.app.id]);
    await page.reload();
    expect((await page.locator('#sends tbody tr').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.id))).map(Number)).to.deep.equal([listSend]);

    expect(await field('Environment')).to.equal("the App's own");
    const [off] = await ids(main.app.id, `token LIKE 'c3%'`);
    await page.goto(`${api.url}/dashboard/audience/installs/${off}`);
    expect(await page.locator('#subscription').textContent()).to.contain('Not subscribed');
    // Apple's reason and the install's own gateway, as token hygiene records them.
    await env.pool.query(`UPDATE subscriptions SET environment = 'sandbox', unsubscribed_reason = 'BadDeviceToken' WHERE id = $1`, [off]);
    await page.reload();
    expect(await page.locator('#subscription').textContent()).to.equal('Not subscribed: Apple answered BadDeviceToken for its token.');
    expect(await field('Environment')).to.equal('sandbox');
    const theirs = (await ids(other.app.id, 'true'))[0];
    expect((await page.goto(`${api.url}/dashboard/audience/installs/${theirs}`))!.status()).to.equal(404);
    expect((await page.goto(`${api.url}/dashboard/audience/installs/not-an-id`))!.status()).to.equal(404);
  });

  it('serves every search from an index (EXPLAIN on 20,000 installs of one app)', async () => {
    const big = await createTestApp(env.pool, 'big');
    await env.pool.query(
      `INSERT INTO subscriptions (id, app_id, token, external_id, tags)
       SELECT gen_random_uuid(), $1, md5(n::text) || md5((n * 7)::text), 'u' || n, jsonb_build_object('n', (n % 1000)::text)
         FROM generate_series(1, 20000) AS n`,
      [big.app.id],
    );
    await env.pool.query('ANALYZE subscriptions');
    const plan = async (by: string, q: string) => {
      const { text, values } = findInstallsQuery(big.app.id, parseFind(by, q));
      return (await env.pool.query(`EXPLAIN ${text}`, values)).rows.map((r) => r['QUERY PLAN'] as string).join('\n');
    };
    if (process.env.HERALD_SHOW_PLANS) for (const [by, q] of [['token', 'c4ca'], ['external_id', 'u42'], ['tag', 'n=42']]) console.log(await plan(by, q));
    expect(await plan('token', 'c4ca')).to.match(/Index Scan using subscriptions_token_prefix|Bitmap Index Scan on subscriptions_token_prefix/);
    expect(await plan('external_id', 'u42')).to.match(/subscriptions_external/);
    expect(await plan('tag', 'n=42')).to.match(/Bitmap Index Scan on subscriptions_tags/);
    expect(await plan('subscription_id', '5b0b6f2e-0f55-4c3c-9d0b-1f0a0e6f6c11')).to.match(/subscriptions_pkey/);
    // The start of an FCM token (an Android install, case kept) on the same index.
    expect(await plan('token', 'fX3kq9Zr:APA91b')).to.match(/Index Scan using subscriptions_token_prefix|Bitmap Index Scan on subscriptions_token_prefix/).and.not.match(/Seq Scan/);
    for (const [by, q] of [['token', 'c4ca'], ['external_id', 'u42'], ['tag', 'n=42']]) expect(await plan(by, q)).to.not.match(/Seq Scan/);
    // The one box: each way the text can be read on its own index.
    expect(await plan('any', 'c4ca')).to.match(/subscriptions_token_prefix/).and.match(/subscriptions_external/);
    expect(await plan('any', 'n=42')).to.match(/Bitmap Index Scan on subscriptions_tags/).and.match(/subscriptions_external/);
    expect(await plan('any', '5b0b6f2e-0f55-4c3c-9d0b-1f0a0e6f6c11')).to.match(/subscriptions_pkey/).and.match(/subscriptions_external/);
    for (const q of ['c4ca', 'n=42', 'u42', '5b0b6f2e-0f55-4c3c-9d0b-1f0a0e6f6c11']) expect(await plan('any', q), q).to.not.match(/Seq Scan/);
  });
});
