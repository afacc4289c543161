// A compose with an image, a button, data and two segments, read at the APNs simulator (issue 40
// "Done when"): in Chromium against a real api, sender and simulator, the devices of either segment
// receive the message once (a device in both, once), the others nothing.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { useTestEnv } from '../env/index.js';
import { signedInBrowser, type TestBrowser } from '../support/browser.js';
import { addDevices, startDeliveryStack, waitFinal, type DeliveryStack } from '../delivery/fixtures.js';

interface Payload {
  aps: { alert: { title?: string; body?: string }; category?: string };
  custom: { m?: string; b?: { id: string; text: string }; a?: Record<string, string> };
}

describe('dashboard: compose to two segments, read at the simulator', function () {
  this.timeout(90_000);
  const env = useTestEnv();
  let stack: DeliveryStack;
  let browser: TestBrowser;
  let page: Page;
  let gold: string[];
  let beta: string[];
  let both: string[];
  let neither: string[];

  before(async function () {
    this.timeout(180_000);
    stack = await startDeliveryStack(env, 'segsim');
    const appId = stack.app.app.id;
    // Tokens are hex (the simulator refuses others): a1 gold, b1 beta, ab1 both, c1 neither.
    gold = await addDevices(env.pool, appId, 2, { prefix: 'a1', language: 'en', tags: { plan: 'gold' } });
    beta = await addDevices(env.pool, appId, 2, { prefix: 'b1', language: 'en', tags: { beta: '1' } });
    both = await addDevices(env.pool, appId, 1, { prefix: 'ab1', language: 'en', tags: { plan: 'gold', beta: '1' } });
    neither = await addDevices(env.pool, appId, 2, { prefix: 'c1', language: 'en', tags: { plan: 'free' } });
    for (const [name, filters] of [['Gold', [{ field: 'tag', key: 'plan', relation: '=', value: 'gold' }]], ['Beta', [{ field: 'tag', key: 'beta', relation: 'exists' }]]] as const) {
      const res = await stack.api.request('POST', `/api/v1/apps/${appId}/segments`, { key: stack.key, body: { name, filters } });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    }
    ({ browser, page } = await signedInBrowser(stack.api.url, stack.key));
  });

  after(async () => {
    await browser?.close();
    await stack?.close();
  });

  it('sends an image, a button and data to Gold or Beta: each of their devices receives it once, the others nothing', async () => {
    await page.goto(`${stack.api.url}/dashboard/compose`);
    for (const [name, value] of Object.entries({ heading_0: 'Members week', content_0: 'Early access', image: 'https://img.example.com/week.png', button_text: 'Open', button_id: 'open', data_key_0: 'week', data_value_0: '48' })) {
      await page.locator(`[name="${name}"]`).fill(value);
    }
    const boxes = page.locator('fieldset.target-segment');
    await boxes.getByLabel('Subscribed Users', { exact: true }).uncheck();
    await boxes.getByLabel('Gold', { exact: true }).check();
    await boxes.getByLabel('Beta', { exact: true }).check();
    await page.locator('#live-estimate', { hasText: 'Estimate: 5 devices now.' }).waitFor();
    await page.getByRole('button', { name: 'Review' }).click();
    expect(await page.locator('#review-summary dd[data-field="Audience"]').textContent()).to.equal('Gold or Beta');
    await page.getByRole('button', { name: 'Send to 5 devices' }).click();
    await page.waitForURL(/\/dashboard\/sends\/\d+$/);
    const id = Number(new URL(page.url()).pathname.split('/').pop());
    expect((await waitFinal(env.pool, id)).final).to.include({ total_recipients: 5, sent: 5, failed: 0 });
    for (const token of [...gold, ...beta, ...both]) {
      const deliveries = stack.sim.deliveries(token);
      expect(deliveries, token).to.have.length(1);
      const p = JSON.parse(deliveries[0].payload) as Payload;
      expect([p.aps.alert.title, p.aps.alert.body, p.custom.m, p.custom.b, p.custom.a]).to.deep.equal(
        ['Members week', 'Early access', 'https://img.example.com/week.png', { id: 'open', text: 'Open' }, { week: '48' }],
      );
    }
    for (const token of neither) expect(stack.sim.deliveries(token), token).to.have.length(0);
  });
});
