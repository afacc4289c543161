// A Live Activity update's report in the dashboard says how it went out (issue 29): its broadcast
// channel accepted by Apple, failed with Apple's reason, or none, and its per-token pushes, read
// from the same report as GET /api/v1/notifications/:id (its live_activity.broadcast). Real api,
// sender and simulator (channels at its management port), Debian's Chromium.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { useTestEnv } from '../env/index.js';
import { startTestApi, type TestApi } from '../support/api-server.js';
import { launchBrowser, type TestBrowser } from '../support/browser.js';
import { createKey } from '../../core/apps/keys.js';
import { silentLogger } from '../../core/log.js';
import { createApiMetrics } from '../../api/shared/metrics.js';
import { LiveActivityBroadcast } from '../../api/live-activities/broadcast.js';
import { createChannelManager } from '../../core/apns/channel-management.js';
import { generateApnsKeyPair, startApnsSim, type ApnsSim } from '../../apns-sim/index.js';
import type { Sender } from '../../sender/index.js';
import { createTestApp, startTestSender, token, waitFinal, type TestApp } from '../delivery/fixtures.js';

const TEAM = 'TEAM000030';

describe('dashboard: how a Live Activity update went out, on its report', function () {
  this.timeout(120_000);
  const env = useTestEnv();
  let sim: ApnsSim;
  let sender: Sender;
  let broadcast: LiveActivityBroadcast;
  let api: TestApi;
  let browser: TestBrowser;
  let page: Page;
  let main: TestApp;
  let key: string;

  before(async function () {
    this.timeout(180_000);
    const keyPair = generateApnsKeyPair();
    sim = await startApnsSim({
      keys: [{ keyId: keyPair.keyId, teamId: TEAM, publicKey: keyPair.publicKeyPem }],
      rules: [{ prefix: 'bade', status: 400, reason: 'BadDeviceToken' }],
    });
    sender = await startTestSender(env, sim);
    main = await createTestApp(env.pool, 'lareport', { key: keyPair, teamId: TEAM });
    await env.pool.query('UPDATE apps SET live_activity_broadcast = true WHERE id = $1', [main.app.id]);
    const metrics = createApiMetrics();
    broadcast = new LiveActivityBroadcast(env.pool, { url: sim.url, ca: await readFile(sim.caFile, 'utf8'), broadcastUrl: sim.managementUrl }, silentLogger(), metrics.registry);
    api = await startTestApi(env, { metrics, liveActivityBroadcast: broadcast });
    key = (await createKey(env.pool, main.app.id, { name: 'ops', scope: 'send' })).key;
    browser = await launchBrowser();
    page = await browser.context.newPage();
    await page.goto(`${api.url}/dashboard/sign-in`);
    await page.getByLabel('REST API key of your app').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${api.url}/dashboard/`);
  });
  after(async () => {
    await browser?.close();
    await api?.close();
    await broadcast?.close();
    await sender?.stop();
    await sim?.close();
  });

  const rest = async (method: string, path: string, body?: unknown) => {
    const res = await api.request(method, path, { key, body });
    expect(res.status, JSON.stringify(res.body)).to.be.within(200, 201);
    return res.body;
  };
  /** An install whose activity was started (its channel made at the first start) and that registered an update token. */
  async function started(name: string, activityId: string, updateToken: string): Promise<number> {
    const sub = (await rest('POST', `/api/v1/apps/${main.app.id}/subscriptions`, { token: token(`d${name}`, 1) })).id;
    await rest('PUT', `/api/v1/apps/${main.app.id}/activities/tokens/start/MatchAttributes/subscriptions/${sub}`, { activity_token: token(`5${name}`, 1), device_type: 0 });
    const start = await rest('POST', `/api/v1/apps/${main.app.id}/activities/activity/MatchAttributes`, {
      name: 'kick-off', event: 'start', activity_id: activityId, event_attributes: { home: 'A', away: 'B' }, event_updates: { home: 0, away: 0 }, contents: { en: 'Kick-off' }, include_subscription_ids: [sub],
    });
    await waitFinal(env.pool, Number(start.notification_id));
    await rest('POST', `/api/v1/apps/${main.app.id}/live_activities/${activityId}/token`, { subscription_id: sub, push_token: updateToken, device_type: 0 });
    return Number(start.notification_id);
  }
  async function update(activityId: string): Promise<number> {
    const id = Number((await rest('POST', `/api/v1/apps/${main.app.id}/live_activities/${activityId}/notifications`, { event: 'update', event_updates: { home: 1, away: 0 } })).id);
    await waitFinal(env.pool, id);
    return id;
  }
  /** What the REST report and the page say of one send. */
  async function shown(id: number) {
    const report = await rest('GET', `/api/v1/notifications/${id}?app_id=${main.app.id}`);
    await page.goto(`${api.url}/dashboard/sends/${id}`);
    // The loaded page's lines (none when it has no such section): [broadcast channel, per-token pushes].
    return { rest: report.live_activity.broadcast, page: await page.locator('#went-out dd').allTextContents() };
  }

  let firstStart: number;

  it('accepted by Apple, with the per-token pushes of the devices before iOS 18', async () => {
    firstStart = await started('a1', 'match-1', token('e1', 1));
    const id = await update('match-1');
    expect(await shown(id)).to.deep.equal({
      rest: { status: 'accepted' },
      page: ["accepted by Apple: one request for every device on the activity's channel", '1 sent, 0 failed of 1'],
    });
  });

  it("failed with Apple's reason (the channel deleted behind Herald's back), the tokens' pushes counted as they went", async () => {
    await started('a2', 'match-2', token('bade', 2));
    const channel = (await env.pool.query('SELECT channel_id FROM live_activity_channels WHERE app_id = $1 AND activity = $2', [main.app.id, 'match-2'])).rows[0].channel_id;
    const manager = createChannelManager({
      credentials: { kind: 'token', keyP8: main.key.privateKeyP8, keyId: main.key.keyId, teamId: TEAM }, topic: main.app.bundleId, environment: 'production', url: sim.managementUrl, ca: await readFile(sim.caFile, 'utf8'),
    });
    try {
      expect((await manager.delete(channel)).status).to.equal(204);
    } finally {
      manager.close();
    }
    const id = await update('match-2');
    expect(await shown(id)).to.deep.equal({
      rest: { status: 'failed', reason: 'BadChannelId' },
      page: ['failed (BadChannelId): devices on the channel missed it; per-token pushes only', '0 sent, 1 failed of 1'],
    });
  });

  it('none for an activity without a channel (started by the app itself), and nothing of the kind on a start', async () => {
    const sub = (await rest('POST', `/api/v1/apps/${main.app.id}/subscriptions`, { token: token('da3', 1) })).id;
    await rest('POST', `/api/v1/apps/${main.app.id}/live_activities/own-3/token`, { subscription_id: sub, push_token: token('e3', 1), device_type: 0 });
    const id = await update('own-3');
    expect(await shown(id)).to.deep.equal({ rest: undefined, page: ['none (no channel): per-token pushes only', '1 sent, 0 failed of 1'] });
    await page.goto(`${api.url}/dashboard/sends/${firstStart}`);
    expect(await page.locator('#status').count()).to.equal(1);
    expect(await page.locator('#went-out').count()).to.equal(0);
  });
});
