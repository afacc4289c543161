// A send's report shows its counts per platform (issue 39 point 8): sent, failed and opened for iOS
// and Android, the figures of the REST report's platform_delivery_stats (iOS the total less
// Android), in the page and in live.json's refreshed markup; Android's row left out only when the
// send counted no Android device and the App has no Android install. Sends are seeded with their
// counters in the database, as the overview's tests seed theirs; the pages come from a real api,
// and Debian's Chromium watches a running send's table refresh without a reload.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { addDevices, makeApp, type TestApp } from '../support/apps.js';
import { seedSend } from '../support/seed-sends.js';
import { createKey } from '../../core/apps/keys.js';
import { signedInBrowser } from '../support/browser.js';
import { ANDROID_INSTALLS_SQL, appHasAndroidInstalls } from '../../core/dashboard-reads/app-platforms.js';
import { waitFor } from '../support/wait.js';

type Row = [platform: string, sent: string, failed: string, opened: string, openedOfSent: string];

/** The per-platform table's rows as the page says them: [platform, sent, failed, opened, opened of sent]. */
function tableRows(page: string): Row[] {
  const table = page.split('<table id="platforms-table">')[1]?.split('</table>')[0];
  if (table === undefined) throw new Error('no per-platform table on the page');
  const body = table.split('<tbody>')[1];
  return body.split('</tr>').filter((tr) => tr.includes('<tr')).map((tr) => [...tr.matchAll(/<t[hd][^>]*>([^<]*)<\/t[hd]>/g)].map((m) => m[1]) as Row);
}

describe('dashboard: a send report per platform', function () {
  this.timeout(60_000);
  const env = useTestEnv({ redis: false });
  const api = useTestApi(env);

  /** A signed-in dashboard session (a read key) of the app: GET a dashboard path's text. */
  async function signIn(app: TestApp) {
    const key = (await createKey(env.pool, app.app.id, { name: 'report', scope: 'read' })).key;
    const res = await fetch(`${api.url}/dashboard/sign-in`, {
      method: 'POST', redirect: 'manual', body: new URLSearchParams({ key }), headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).to.equal(302);
    const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0];
    return async (path: string) => {
      const page = await fetch(api.url + path, { headers: { cookie } });
      expect(page.status, path).to.equal(200);
      return page.text();
    };
  }
  /** The page's rows, live.json's rows (its markup) and the REST report's platform_delivery_stats. */
  async function shown(app: TestApp, get: (path: string) => Promise<string>, id: number) {
    const live = JSON.parse(await get(`/dashboard/sends/${id}/live.json`));
    const rest = await api.request('GET', `/api/v1/notifications/${id}?app_id=${app.app.id}`, { key: app.key });
    expect(rest.status).to.equal(200);
    return { page: tableRows(await get(`/dashboard/sends/${id}`)), live: tableRows(live.platforms), rest: rest.body.platform_delivery_stats };
  }
  async function androidCounts(id: number, sent: number, failed: number, clicked: number) {
    await env.pool.query('UPDATE sends SET sent_android = $2, failed_android = $3, clicked_android = $4 WHERE id = $1', [id, sent, failed, clicked]);
  }
  const at = new Date(Date.now() - 3_600_000);

  it('shows iOS and Android apart for a send to both, the same figures as the REST report', async () => {
    const app = await makeApp(env.pool);
    await addDevices(env.pool, app.app.id, [{}, {}]);
    const android = await addDevices(env.pool, app.app.id, [{}]);
    await env.pool.query(`UPDATE subscriptions SET platform = 'android' WHERE id = ANY($1)`, [android]);
    const get = await signIn(app);
    const id = await seedSend(env.pool, app.app.id, { at, sent: 1200, failed: 30, clicked: 250 });
    await androidCounts(id, 450, 12, 90);
    const figures = await shown(app, get, id);
    const rows: Row[] = [['iOS', '750', '18', '160', '21.3%'], ['Android', '450', '12', '90', '20.0%']];
    expect(figures.page).to.deep.equal(rows);
    expect(figures.live).to.deep.equal(rows);
    expect(figures.rest).to.deep.equal({
      ios: { successful: 750, failed: 18, errored: 0, converted: 160 },
      android: { successful: 450, failed: 12, errored: 0, converted: 90 },
    });
  });

  it("leaves Android's row out of an iOS-only App's send, and keeps it at zeros for an App with Android installs", async () => {
    const iosApp = await makeApp(env.pool);
    await addDevices(env.pool, iosApp.app.id, [{}, {}]);
    const iosId = await seedSend(env.pool, iosApp.app.id, { at, sent: 2, failed: 0, clicked: 1 });
    const iosOnly = await shown(iosApp, await signIn(iosApp), iosId);
    expect(iosOnly.page).to.deep.equal([['iOS', '2', '0', '1', '50.0%']]);
    expect(iosOnly.live).to.deep.equal(iosOnly.page);
    // Nothing sent yet: opened of sent has no rate.
    const none = await seedSend(env.pool, iosApp.app.id, { at, finished: false });
    expect((await shown(iosApp, await signIn(iosApp), none)).page).to.deep.equal([['iOS', '0', '0', '0', '—']]);

    // The same send in an App that has one Android install (an iOS-only audience): Android's row says it had none.
    const mixed = await makeApp(env.pool);
    const [one] = await addDevices(env.pool, mixed.app.id, [{}]);
    await env.pool.query(`UPDATE subscriptions SET platform = 'android' WHERE id = $1`, [one]);
    const mixedId = await seedSend(env.pool, mixed.app.id, { at, sent: 2, failed: 0, clicked: 1 });
    expect((await shown(mixed, await signIn(mixed), mixedId)).page).to.deep.equal([['iOS', '2', '0', '1', '50.0%'], ['Android', '0', '0', '0', '—']]);
    // The question is one probe of the partial index (migration 074), whatever the App's iOS installs; a
    // table this small would be scanned, so the planner is told not to.
    const client = await env.pool.connect();
    try {
      await client.query('SET enable_seqscan = off');
      expect(await appHasAndroidInstalls(client, iosApp.app.id)).to.equal(false);
      const plan = await client.query(`EXPLAIN ${ANDROID_INSTALLS_SQL}`, [iosApp.app.id]);
      expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).to.contain('subscriptions_android');
    } finally {
      await client.query('RESET enable_seqscan');
      client.release();
    }
  });

  it('keeps the row of a send that counted Android devices after the App lost its last Android install', async () => {
    const app = await makeApp(env.pool);
    await addDevices(env.pool, app.app.id, [{}]);
    const id = await seedSend(env.pool, app.app.id, { at, sent: 1, failed: 1 });
    // Each counter alone is enough: one failed Android device, nothing else.
    await androidCounts(id, 0, 1, 0);
    expect((await shown(app, await signIn(app), id)).page).to.deep.equal([['iOS', '1', '0', '0', '0.0%'], ['Android', '0', '1', '0', '—']]);
  });

  it("refreshes a running send's table in the browser as its counters move, Android's row appearing with its first device", async () => {
    const app = await makeApp(env.pool);
    await addDevices(env.pool, app.app.id, [{}]);
    const id = await seedSend(env.pool, app.app.id, { at, sent: 3, failed: 1, finished: false });
    const { browser, page } = await signedInBrowser(api.url, app.key);
    try {
      await page.goto(`${api.url}/dashboard/sends/${id}`);
      const rows = () => page.locator('#platforms-table tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
      expect(await rows()).to.deep.equal([['iOS', '3', '1', '0', '0.0%']]);
      await env.pool.query('UPDATE sends SET sent = 5, clicked = 1 WHERE id = $1', [id]);
      await androidCounts(id, 2, 0, 1);
      const want = [['iOS', '3', '1', '0', '0.0%'], ['Android', '2', '0', '1', '50.0%']];
      await waitFor('the refreshed per-platform table', async () => JSON.stringify(await rows()) === JSON.stringify(want), 15_000);
    } finally {
      await browser.close();
    }
  });
});
