// A send composed in the dashboard for Android only, read at fcm-sim (issue 39 point 8 with point 3,
// issue 40 point 4): a real browser, api, sender, apns-sim and fcm-sim. What FCM receives is each
// field the form gave (the notification's title, body and image; message.android's channel, icon,
// colour as #RRGGBB, sound and tag, priority and ttl), and no iOS device gets anything.
import { expect } from 'chai';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { useTestEnv } from '../env/index.js';
import { signedInBrowser, type TestBrowser } from '../support/browser.js';
import { addDevices, startDeliveryStack, waitFinal, type DeliveryStack } from '../delivery/fixtures.js';
import { startFcmSim, type FcmSim } from '../../fcm-sim/index.js';
import { setFcmCredentials } from '../../core/fcm/credentials-store.js';
import { atSim, makeServiceAccount, simCa } from '../fcm/helpers.js';

describe('dashboard: a send composed for Android only, read at fcm-sim', function () {
  this.timeout(90_000);
  const env = useTestEnv();
  const sa = makeServiceAccount('herald-dash-android');
  let fcm: FcmSim;
  let stack: DeliveryStack;
  let browser: TestBrowser;
  let page: Page;
  let ios: string[];
  const android = [0, 1].map((i) => `dAsh${i}:APA91b${'q'.repeat(140)}`);

  before(async function () {
    this.timeout(180_000);
    fcm = await startFcmSim({ accounts: [{ clientEmail: sa.account.clientEmail, projectId: sa.account.projectId, publicKey: sa.publicKey }], certDir: await mkdtemp(join(tmpdir(), 'herald-dash-fcm-')) });
    stack = await startDeliveryStack(env, 'dashfcm', {}, { fcm: { url: fcm.url, ca: await simCa(fcm) } });
    const appId = stack.app.app.id;
    await setFcmCredentials(env.pool, appId, atSim(sa.account, fcm));
    ios = await addDevices(env.pool, appId, 2, { prefix: 'f1', language: 'en' });
    for (const token of android) {
      const res = await stack.api.request('POST', `/api/v1/apps/${appId}/subscriptions`, { body: { type: 'AndroidPush', token, language: 'en' } });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    }
    ({ browser, page } = await signedInBrowser(stack.api.url, stack.key));
  });

  after(async () => {
    await browser?.close();
    await stack?.close();
    await fcm?.close();
  });

  it('FCM receives every field the form gave; iOS devices get nothing', async () => {
    await page.goto(`${stack.api.url}/dashboard/compose`);
    const fields = {
      heading_0: 'Goal!', content_0: '2-1 in the 90th', image: 'https://img.example.com/goal.png', ttl: '600',
      android_channel_id: 'scores', small_icon: 'ic_stat_ball', android_accent_color: '80FF5500', android_sound: 'whistle', android_group: 'match-7',
    };
    for (const [name, value] of Object.entries(fields)) await page.locator(`[name="${name}"]`).fill(value);
    await page.getByLabel('Platforms').selectOption('android');
    await page.getByRole('button', { name: 'Review' }).click();
    await page.getByRole('button', { name: 'Send to 2 devices' }).click();
    await page.waitForURL(/\/dashboard\/sends\/\d+$/);
    const id = Number(new URL(page.url()).pathname.split('/').pop());
    expect((await waitFinal(env.pool, id)).final).to.include({ sent: 2, failed: 0, skipped: 0 });
    for (const token of android) {
      const [got] = fcm.deliveries(token);
      expect(got.message).to.deep.include({
        notification: { title: 'Goal!', body: '2-1 in the 90th', image: 'https://img.example.com/goal.png' },
        android: { priority: 'HIGH', ttl: '600s', notification: { channel_id: 'scores', icon: 'ic_stat_ball', color: '#FF5500', sound: 'whistle', tag: 'match-7' } },
      });
    }
    for (const token of ios) expect(stack.sim.deliveries(token)).to.have.length(0);
  });
});
