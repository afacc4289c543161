// The audience pages of issue 27 (point 7) in a real browser (Debian's Chromium, playwright-core)
// against a real api: users and installs to browse page by page with their totals, a user's page
// (aliases, tags, installs, the sends that reached it), and erasure from it behind a confirmation
// (a send key only; the POST carries the CSRF token; core/users' eraseUser, as deleteUser), after
// which no audience page finds the user or its installs. One app never sees another's users.
import { expect } from 'chai';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import * as OneSignal from '@onesignal/node-onesignal';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { launchBrowser, type TestBrowser } from '../support/browser.js';
import { officialClient } from '../support/onesignal.js';
import { createKey } from '../../core/apps/keys.js';
import { USERS_PAGE } from '../../core/users/browse-users.js';
import { INSTALLS_PAGE } from '../../core/subscriptions/browse-installs.js';
import { addDevices, createTestApp, token, type TestApp } from '../delivery/fixtures.js';

const SHOTS = process.env.HERALD_DASHBOARD_SCREENSHOTS;

describe('dashboard users and installs in a browser', function () {
  this.timeout(60_000);
  const env = useTestEnv();
  const api = useTestApi(env);
  let browser: TestBrowser;
  let main: TestApp;
  let other: TestApp;
  let sendKey: string;
  let readKey: string;
  let ann: { id: string; installs: string[] };
  let otherUser: string;
  const USERS = USERS_PAGE + 2;
  const ANONYMOUS = INSTALLS_PAGE + 10;
  const shot = async (page: Page, name: string) => {
    if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  };
  const rowIds = (page: Page, table: string) => page.locator(`#${table} tbody tr`).evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.id));
  async function signedIn(key: string): Promise<Page> {
    const page = await browser.context.newPage();
    await page.context().clearCookies();
    await page.goto(`${api.url}/dashboard/sign-in`);
    await page.getByLabel('REST API key of your app').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${api.url}/dashboard/`);
    return page;
  }

  before(async function () {
    this.timeout(180_000);
    main = await createTestApp(env.pool, 'shop');
    other = await createTestApp(env.pool, 'elsewhere');
    sendKey = (await createKey(env.pool, main.app.id, { name: 'ops', scope: 'send' })).key;
    readKey = (await createKey(env.pool, main.app.id, { name: 'viewer', scope: 'read' })).key;
    const client = officialClient(api.url, sendKey);
    const made = await client.createUser(main.app.id, Object.assign(new OneSignal.User(), {
      identity: { external_id: 'ann', crm: 'c-42' },
      properties: { tags: { plan: 'gold', city: 'Lyon' }, language: 'fr', timezone_id: 'Europe/Paris' },
      subscriptions: [{ type: 'iOSPush', token: token('aa', 1) }, { type: 'iOSPush', token: token('aa', 2) }],
    }));
    ann = { id: made.identity!.onesignal_id!, installs: made.subscriptions!.map((s) => s.id!) };
    for (let i = 1; i < USERS; i++) {
      await client.createUser(main.app.id, Object.assign(new OneSignal.User(), { identity: { external_id: `u-${i}` }, subscriptions: [{ type: 'iOSPush', token: token('bb', i) }] }));
    }
    await addDevices(env.pool, main.app.id, ANONYMOUS, { prefix: 'cc' });
    otherUser = (await officialClient(api.url, (await createKey(env.pool, other.app.id, { scope: 'send' })).key)
      .createUser(other.app.id, Object.assign(new OneSignal.User(), { identity: { external_id: 'ann' } }))).identity!.onesignal_id!;
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
  });

  it('browses the users page by page with the total, only this app\'s', async () => {
    const page = await signedIn(readKey);
    await page.getByRole('link', { name: 'Audience' }).click();
    await page.getByRole('link', { name: 'Users' }).click();
    await page.waitForURL(`${api.url}/dashboard/audience/users`);
    expect(await page.locator('#total').innerText()).to.equal(`1–${USERS_PAGE} of ${USERS} users`);
    const first = await rowIds(page, 'users');
    const all = (await env.pool.query('SELECT id FROM users WHERE app_id = $1 ORDER BY id', [main.app.id])).rows.map((r) => r.id as string);
    expect(all).to.have.length(USERS);
    expect(first).to.deep.equal(all.slice(0, USERS_PAGE));
    await shot(page, 'audience-users');
    await page.getByRole('link', { name: 'Next page' }).click();
    await page.waitForURL(/after=/);
    expect(await page.locator('#total').innerText()).to.equal(`${USERS_PAGE + 1}–${USERS} of ${USERS} users`);
    expect(await rowIds(page, 'users')).to.deep.equal(all.slice(USERS_PAGE));
    expect(await page.getByRole('link', { name: 'Next page' }).count()).to.equal(0);
    await page.getByRole('link', { name: 'First page' }).click();
    expect(await rowIds(page, 'users')).to.deep.equal(all.slice(0, USERS_PAGE));
    expect(all).not.to.include(otherUser);
    // Another app's user is a 404, as an unknown one.
    expect((await page.goto(`${api.url}/dashboard/audience/users/${otherUser}`))!.status()).to.equal(404);
    await page.close();
  });

  it('browses the installs newest first, page by page with the total; each links its user', async () => {
    const page = await signedIn(readKey);
    await page.goto(`${api.url}/dashboard/audience/installs`);
    const all = (await env.pool.query('SELECT id, user_id FROM subscriptions WHERE app_id = $1 ORDER BY seq DESC', [main.app.id])).rows;
    const total = 2 + (USERS - 1) + ANONYMOUS;
    expect(all).to.have.length(total);
    expect(await page.locator('#total').innerText()).to.equal(`1–${INSTALLS_PAGE} of ${total} installs`);
    expect(await rowIds(page, 'installs')).to.deep.equal(all.slice(0, INSTALLS_PAGE).map((r) => r.id));
    const pages = [all.slice(0, INSTALLS_PAGE)];
    while (await page.getByRole('link', { name: 'Next page' }).count()) {
      await page.getByRole('link', { name: 'Next page' }).click();
      await page.waitForLoadState();
      pages.push(all.slice(pages.length * INSTALLS_PAGE, (pages.length + 1) * INSTALLS_PAGE));
      expect(await rowIds(page, 'installs')).to.deep.equal(pages[pages.length - 1].map((r) => r.id));
    }
    expect(pages.flat()).to.have.length(total);
    // The oldest page holds Ann's installs, each linking her page.
    await page.locator(`#installs tr[data-id="${ann.installs[0]}"] a[href="/dashboard/audience/users/${ann.id}"]`).click();
    await page.getByRole('heading', { name: `User ${ann.id}` }).waitFor();
    await page.close();
  });

  it('names each install\'s platform and filters the list by it, page by page with its own total; Google\'s refusals are Google\'s', async () => {
    // Android installs among the anonymous ones (subscriptions.platform): a page and a few more.
    const ANDROID = INSTALLS_PAGE + 5;
    const android = (await env.pool.query(
      `UPDATE subscriptions SET platform = 'android' WHERE id IN (SELECT id FROM subscriptions WHERE app_id = $1 AND user_id IS NULL AND external_id IS NULL ORDER BY seq LIMIT $2) RETURNING id`,
      [main.app.id, ANDROID],
    )).rows.map((r) => r.id as string);
    const newest = (platform: string) => env.pool.query('SELECT id FROM subscriptions WHERE app_id = $1 AND platform = $2 ORDER BY seq DESC', [main.app.id, platform]).then((r) => r.rows.map((x) => x.id as string));
    const oldestAndroid = (await newest('android')).at(-1)!; // on the filter's second page
    await env.pool.query(`UPDATE subscriptions SET subscribed = false, unsubscribed_reason = 'UNREGISTERED' WHERE id = $1`, [oldestAndroid]);
    const total = 2 + (USERS - 1) + ANONYMOUS;
    const page = await signedIn(readKey);
    await page.goto(`${api.url}/dashboard/audience/installs`);
    expect(await page.locator('#platform-filter a[aria-current="page"]').textContent()).to.equal('All');
    const shown = (await env.pool.query('SELECT platform FROM subscriptions WHERE app_id = $1 ORDER BY seq DESC LIMIT $2', [main.app.id, INSTALLS_PAGE])).rows;
    const platforms = await page.locator('#installs td[data-label="Platform"]').allTextContents();
    expect(platforms).to.deep.equal(shown.map((r) => (r.platform === 'android' ? 'Android' : 'iOS')));
    expect(new Set(platforms)).to.deep.equal(new Set(['iOS', 'Android'])); // the newest page holds both

    await page.locator('#platform-filter').getByRole('link', { name: 'Android' }).click();
    await page.waitForURL(`${api.url}/dashboard/audience/installs?platform=android`);
    expect(await page.locator('#platform-filter a[aria-current="page"]').textContent()).to.equal('Android');
    expect(await page.locator('#total').innerText()).to.equal(`1–${INSTALLS_PAGE} of ${ANDROID} Android installs`);
    const androidNewest = await newest('android');
    expect(await rowIds(page, 'installs')).to.deep.equal(androidNewest.slice(0, INSTALLS_PAGE));
    expect(new Set(await page.locator('#installs td[data-label="Platform"]').allTextContents())).to.deep.equal(new Set(['Android']));
    // The next page keeps the filter.
    await page.getByRole('link', { name: 'Next page' }).click();
    await page.waitForLoadState();
    expect(page.url()).to.contain('platform=android&before=');
    expect(await rowIds(page, 'installs')).to.deep.equal(androidNewest.slice(INSTALLS_PAGE));
    expect(await page.locator(`#installs tr[data-id="${oldestAndroid}"] td[data-label="Subscribed"]`).textContent()).to.equal('No: Google (UNREGISTERED)');
    expect(await page.getByRole('link', { name: 'Next page' }).count()).to.equal(0);

    await page.goto(`${api.url}/dashboard/audience/installs?platform=ios`);
    expect(await page.locator('#total').innerText()).to.equal(`1–${INSTALLS_PAGE} of ${total - ANDROID} iOS installs`);
    expect(await rowIds(page, 'installs')).to.deep.equal((await newest('ios')).slice(0, INSTALLS_PAGE));
    // A value the links never give is no filter.
    await page.goto(`${api.url}/dashboard/audience/installs?platform=windows`);
    expect(await page.locator('#total').innerText()).to.equal(`1–${INSTALLS_PAGE} of ${total} installs`);

    // The find box finds an Android install by the start of its FCM token (case kept), and its
    // results say the platform, as the install's page does.
    const fcmToken = `fX3kq9Zr-QmO0u3jUh1_2S:APA91bH${'Zq'.repeat(60)}`;
    await env.pool.query('UPDATE subscriptions SET token = $2 WHERE id = $1', [android[1], fcmToken]);
    await page.goto(`${api.url}/dashboard/audience?${new URLSearchParams({ q: fcmToken.slice(0, 30) })}`);
    expect(await page.locator('#looked-for').textContent()).to.equal('Looked for an external id or a token prefix.');
    expect(await page.locator('tbody.rows tr').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.id))).to.deep.equal([android[1]]);
    expect(await page.locator(`tr[data-id="${android[1]}"] td[data-label="Platform"]`).textContent()).to.equal('Android');
    await page.goto(`${api.url}/dashboard/audience?${new URLSearchParams({ by: 'token', q: fcmToken.slice(0, 30).toLowerCase() })}`);
    expect(await page.locator('body').textContent()).to.contain('No install matches.');
    await page.goto(`${api.url}/dashboard/audience/installs/${oldestAndroid}`);
    expect(await page.locator('#install-platform').textContent()).to.equal('Android (FCM)');
    expect(await page.locator('#subscription').textContent()).to.equal('Not subscribed: Google answered UNREGISTERED for its token.');
    await page.goto(`${api.url}/dashboard/audience/installs/${ann.installs[0]}`);
    expect(await page.locator('#install-platform').textContent()).to.equal('iOS (APNs)');
    await page.close();
  });

  it("shows a user's aliases, tags, installs and the sends that reached it; a read key cannot erase", async () => {
    const post = async (text: string, target: Record<string, unknown>) => {
      const res = await api.request('POST', '/api/v1/notifications', { key: sendKey, body: { app_id: main.app.id, contents: { en: text }, ...target } });
      expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 202]);
      return res.body.id as number;
    };
    const toAnn = await post('Your order shipped', { include_external_ids: ['ann'] });
    const gold = await post('Gold members first', { filters: [{ field: 'tag', key: 'plan', relation: '=', value: 'gold' }] });
    const silver = await post('Silver perks', { filters: [{ field: 'tag', key: 'plan', relation: '=', value: 'silver' }] });
    expect(silver).to.be.a('number');
    const page = await signedIn(readKey);
    await page.goto(`${api.url}/dashboard/audience/users/${ann.id}`);
    const cells = async (table: string) => page.locator(`#${table} tbody tr`).evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent!.trim())));
    expect(await cells('aliases')).to.deep.equal([['crm', 'c-42'], ['external_id', 'ann']]);
    expect(await cells('tags')).to.deep.equal([['city', 'Lyon'], ['plan', 'gold']]);
    expect(await page.locator('#user').innerText()).to.include('Europe/Paris');
    expect(await rowIds(page, 'user-installs')).to.deep.equal(ann.installs);
    expect((await rowIds(page, 'sends')).map(Number)).to.deep.equal([gold, toAnn]);
    // An install's page leads back to its user.
    await page.goto(`${api.url}/dashboard/audience/installs/${ann.installs[0]}`);
    await page.locator('#install-user').getByRole('link').click();
    await page.waitForURL(`${api.url}/dashboard/audience/users/${ann.id}`);
    expect(await page.getByRole('link', { name: 'Erase this user…' }).count()).to.equal(0);
    expect(await page.getByText('Erasing a user needs a key of scope send.').count()).to.equal(1);
    await shot(page, 'audience-user');
    expect((await page.goto(`${api.url}/dashboard/audience/users/${ann.id}/erase`))!.status()).to.equal(403);
    await page.close();
  });

  it('erases a user after asking (send key, CSRF token); then no audience page finds it or its installs', async () => {
    const page = await signedIn(sendKey);
    await page.goto(`${api.url}/dashboard/audience/users/${ann.id}`);
    await page.getByRole('link', { name: 'Erase this user…' }).click();
    await page.getByRole('heading', { name: `Erase user ${ann.id}?` }).waitFor();
    await shot(page, 'audience-user-erase');
    // Saying no keeps the user.
    await page.getByRole('link', { name: 'No, keep it' }).click();
    await page.getByRole('heading', { name: `User ${ann.id}` }).waitFor();
    expect((await env.pool.query('SELECT 1 FROM users WHERE id = $1', [ann.id])).rowCount).to.equal(1);
    // The form without its token is refused and erases nothing.
    const forged = await page.request.post(`${api.url}/dashboard/audience/users/${ann.id}/erase`, { form: { _csrf: 'nope' }, headers: { Origin: api.url } });
    expect(forged.status()).to.equal(403);
    const crossOrigin = await page.request.post(`${api.url}/dashboard/audience/users/${ann.id}/erase`, { form: { _csrf: 'nope' }, headers: { Origin: 'https://evil.example' } });
    expect(crossOrigin.status()).to.equal(403);
    expect((await env.pool.query('SELECT 1 FROM users WHERE id = $1', [ann.id])).rowCount).to.equal(1);

    await page.getByRole('link', { name: 'Erase this user…' }).click();
    await page.getByRole('button', { name: 'Yes, erase this user' }).click();
    await page.locator('#erased').waitFor();
    expect(await page.locator('#erased').innerText()).to.match(/^The user was erased: 2 installs, 2 aliases, 0 Live Activity tokens, 0 push type tokens and 0 opens deleted; its ids taken out of 1 list send\.$/);
    expect(await page.locator('#total').innerText()).to.equal(`1–${USERS_PAGE} of ${USERS - 1} users`);
    expect((await env.pool.query('SELECT 1 FROM users WHERE id = $1', [ann.id])).rowCount).to.equal(0);

    // Nowhere to be found: its page, its installs' pages, the installs list, the find box.
    expect((await page.goto(`${api.url}/dashboard/audience/users/${ann.id}`))!.status()).to.equal(404);
    for (const id of ann.installs) expect((await page.goto(`${api.url}/dashboard/audience/installs/${id}`))!.status()).to.equal(404);
    await page.goto(`${api.url}/dashboard/audience/installs`);
    expect(await page.locator("#total").innerText()).to.equal(`1–${INSTALLS_PAGE} of ${USERS - 1 + ANONYMOUS} installs`);
    for (const q of ['ann', ann.installs[0], token('aa', 1).slice(0, 20)]) {
      await page.goto(`${api.url}/dashboard/audience?${new URLSearchParams({ q })}`);
      expect(await page.getByText('No install matches.').count(), q).to.equal(1);
    }
    // The list send that named her keeps its audience's size in words: not "0 external ids (1)".
    const toAnn = (await env.pool.query(`SELECT id FROM sends WHERE app_id = $1 AND target_kind = 'external_ids' ORDER BY id DESC LIMIT 1`, [main.app.id])).rows[0].id;
    expect((await env.pool.query(`SELECT request->'target'->'ids' AS ids FROM sends WHERE id = $1`, [toAnn])).rows[0].ids).to.deep.equal([]);
    await page.goto(`${api.url}/dashboard/sends`);
    expect(await page.locator(`tbody tr[data-id="${toAnn}"] td.audience`).textContent()).to.equal('1 external id (1)');
    await page.goto(`${api.url}/dashboard/sends/${toAnn}`);
    expect(await page.locator('#audience').textContent()).to.equal('1 external id');
    // A second erase of the same user (a reload) finds no such user.
    expect((await page.goto(`${api.url}/dashboard/audience/users/${ann.id}/erase`))!.status()).to.equal(404);
    // The other app's user of the same external id is untouched.
    expect((await env.pool.query('SELECT 1 FROM users WHERE id = $1', [otherUser])).rowCount).to.equal(1);
    await page.close();
  });
  it('counts, lists and finds a user named only by the external id its installs carry; every page tells the same story', async () => {
    // Installs registered with an external id and never named by a user call: no users row yet.
    const [first, second] = await addDevices(env.pool, main.app.id, 2, { prefix: 'dd', externalIdPrefix: 'ext-' }); // ext-1, ext-2
    await env.pool.query(`UPDATE subscriptions SET external_id = 'ext-1', tags = '{"level": "3"}', subscribed = false, unsubscribed_reason = 'app' WHERE token = $1`, [second]);
    await env.pool.query(`UPDATE subscriptions SET tags = '{"plan": "free"}' WHERE token = $1`, [first]);
    const [apple] = await addDevices(env.pool, main.app.id, 1, { prefix: 'de', externalIdPrefix: 'ext-' }); // ext-1 again
    await env.pool.query(`UPDATE subscriptions SET subscribed = false, unsubscribed_reason = 'Unregistered' WHERE token = $1`, [apple]);
    const rows = Number((await env.pool.query('SELECT count(*) FROM users WHERE app_id = $1', [main.app.id])).rows[0].count);
    const page = await signedIn(readKey);
    await page.goto(`${api.url}/dashboard/audience/users`);
    expect(await page.locator('#total').innerText()).to.match(new RegExp(` of ${rows + 1} users$`)); // ext-1 is one user
    while (await page.getByRole('link', { name: 'Next page' }).count()) await page.getByRole('link', { name: 'Next page' }).click();
    const unnamed = page.locator('#users tr[data-external="ext-1"]');
    expect(await unnamed.locator('td[data-label="Installs"]').textContent()).to.equal('3');
    // Found by its external id: its installs, its tags as its row will take them, each install told apart.
    await page.getByLabel('Alias id').fill('ext-1');
    await page.getByRole('button', { name: 'Find the user' }).click();
    expect(await page.locator('#user-external-id').textContent()).to.equal('ext-1');
    expect(await page.locator('#user-installs tbody tr').count()).to.equal(3);
    const subscribed = await page.locator('#user-installs td[data-label="Subscribed"]').allTextContents();
    expect([...subscribed].sort()).to.deep.equal(['No: Apple (Unregistered)', 'No: the app turned it off', 'Yes']);
    expect(await page.locator('#tags tbody tr').evaluateAll((r) => r.map((x) => x.textContent))).to.deep.equal(['level3', 'planfree']);
    await shot(page, 'audience-user-unnamed');
    // Its installs' pages and the installs list name that user, not "none".
    const id = (await env.pool.query('SELECT id FROM subscriptions WHERE token = $1', [first])).rows[0].id;
    await page.goto(`${api.url}/dashboard/audience/installs/${id}`);
    expect(await page.locator('#install-user').textContent()).to.equal('the user of external id ext-1');
    await page.goto(`${api.url}/dashboard/audience/installs`);
    expect(await page.locator(`#installs tr[data-id="${id}"] td[data-label="User"]`).textContent()).to.equal('the user of external id ext-1');
    await page.locator(`#installs tr[data-id="${id}"] td[data-label="User"] a`).click();
    expect(await page.locator('#user-external-id').textContent()).to.equal('ext-1');
    // By any alias: a users row's external id or OneSignal id leads to its page; an unknown one says so.
    const u1 = (await env.pool.query("SELECT user_id FROM user_aliases WHERE app_id = $1 AND alias_id = 'u-1'", [main.app.id])).rows[0].user_id;
    await page.goto(`${api.url}/dashboard/audience/users/by-alias?label=external_id&id=u-1`);
    await page.getByRole('heading', { name: `User ${u1}` }).waitFor();
    await page.goto(`${api.url}/dashboard/audience/users/by-alias?label=onesignal_id&id=${u1}`);
    await page.getByRole('heading', { name: `User ${u1}` }).waitFor();
    const unknown = await page.goto(`${api.url}/dashboard/audience/users/by-alias?label=external_id&id=nobody`);
    expect(unknown!.status()).to.equal(404);
    expect(await page.locator('#find-errors').textContent()).to.equal('No user of this app has the alias external_id nobody.');
    // The other app's user of external id ann is not this app's.
    expect((await page.goto(`${api.url}/dashboard/audience/users/by-alias?label=onesignal_id&id=${otherUser}`))!.status()).to.equal(404);
    // A user call names it: the same user, now a row holding the same installs; the total is unchanged.
    const named = await officialClient(api.url, sendKey).createUser(main.app.id, Object.assign(new OneSignal.User(), { identity: { external_id: 'ext-1' } }));
    await page.goto(`${api.url}/dashboard/audience/users/by-alias?label=external_id&id=ext-1`);
    await page.getByRole('heading', { name: `User ${named.identity!.onesignal_id}` }).waitFor();
    expect(await page.locator('#user-installs tbody tr').count()).to.equal(3);
    await page.goto(`${api.url}/dashboard/audience/users`);
    expect(await page.locator('#total').innerText()).to.match(new RegExp(` of ${rows + 1} users$`));
    await page.close();
  });
});
