// Compose and templates in a real browser against a real api, sender and APNs simulator (issue 40
// points 3 and 4): a compose with an image, a button, data and an excluded segment read at the
// simulator; the longest value of each field through to the device; filters and per-time-zone
// delivery at Review; a template made, edited, copied and deleted in the dashboard with every field
// createTemplate takes and its sentences, then sent from compose.
import { expect } from 'chai';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { useTestEnv } from '../env/index.js';
import { signedInBrowser, type TestBrowser } from '../support/browser.js';
import { addDevices, startDeliveryStack, waitFinal, type DeliveryStack } from '../delivery/fixtures.js';

const SHOTS = process.env.HERALD_DASHBOARD_SCREENSHOTS;

interface Payload {
  aps: { alert: { title?: string; subtitle?: string; body?: string }; category?: string; sound?: string; badge?: number; 'thread-id'?: string; 'mutable-content'?: number };
  custom: { u?: string; m?: string; b?: { id: string; text: string }; a?: Record<string, string> };
}

describe('dashboard: compose with every field, and templates made in the dashboard', function () {
  this.timeout(90_000);
  const env = useTestEnv();
  let stack: DeliveryStack;
  let browser: TestBrowser;
  let page: Page;
  let appId: string;
  let active: string[];
  let inactive: string[];

  const text = (selector: string) => page.locator(selector).textContent();
  const received = (token: string) => JSON.parse(stack.sim.deliveries(token).at(-1)!.payload) as Payload;
  const sentId = async () => {
    await page.waitForURL(/\/dashboard\/sends\/\d+$/);
    return Number(new URL(page.url()).pathname.split('/').pop());
  };
  const fill = async (fields: Record<string, string>) => {
    for (const [name, value] of Object.entries(fields)) await page.locator(`[name="${name}"]`).fill(value);
  };

  before(async function () {
    this.timeout(180_000);
    stack = await startDeliveryStack(env, 'cmpshop');
    appId = stack.app.app.id;
    active = await addDevices(env.pool, appId, 3, { prefix: 'a1', language: 'en', tags: { cohort: 'x' } });
    inactive = await addDevices(env.pool, appId, 2, { prefix: 'b1', language: 'en', tags: { cohort: 'x' } });
    // Not seen for a month: in the built-in segment Inactive Users.
    await env.pool.query(`UPDATE subscriptions SET last_active = now() - interval '30 days' WHERE token = ANY($1)`, [inactive]);
    ({ browser, page } = await signedInBrowser(stack.api.url, stack.key));
  });

  after(async () => {
    await browser?.close();
    await stack?.close();
  });

  it('sends an image, a button, data and leaves out a segment: the simulator receives them, and no excluded device', async () => {
    await page.goto(`${stack.api.url}/dashboard/compose`);
    await fill({ heading_0: 'Restock', content_0: 'Your size is back', image: 'https://img.example.com/shoe.png', button_text: 'Buy now', button_id: 'buy' });
    await fill({ data_key_0: 'sku', data_value_0: 'A1', data_key_1: 'size', data_value_1: '42' });
    expect(await page.locator('#preview [data-preview="button_text"]').textContent()).to.equal('Buy now');
    await page.getByLabel('Send to').selectOption('tag');
    await fill({ tag_key: 'cohort', tag_value: 'x' });
    await page.locator('#live-estimate', { hasText: 'Estimate: 5 devices now.' }).waitFor();
    await page.getByRole('checkbox', { name: 'Inactive Users' }).check();
    await page.locator('#live-estimate', { hasText: 'Estimate: 3 devices now.' }).waitFor();
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'compose-fields.png'), fullPage: true });
    await page.getByRole('button', { name: 'Review' }).click();
    // Review lists what goes out.
    expect(await text('#review-summary dd[data-field="Audience"]')).to.equal('tag cohort = x, without Inactive Users');
    expect(await text('#estimate')).to.equal('3 devices');
    expect(await text('#message-fields dd[data-field="Image"]')).to.equal('https://img.example.com/shoe.png');
    expect(await text('#message-fields dd[data-field="Button"]')).to.equal('Buy now (id buy)');
    expect(await page.locator('#data tbody tr').evaluateAll((rows) => rows.map((r) => [r.querySelector('th')!.textContent, r.querySelector('td')!.textContent]))).to.deep.equal([['size', '42'], ['sku', 'A1']]);
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'compose-fields-review.png'), fullPage: true });
    await page.getByRole('button', { name: 'Send to 3 devices' }).click();
    const id = await sentId();
    expect((await waitFinal(env.pool, id)).final).to.include({ sent: 3, failed: 0 });
    for (const token of active) {
      const p = received(token);
      expect([p.aps.alert.title, p.aps.alert.body, p.aps.category, p.custom.m, p.custom.b, p.custom.a]).to.deep.equal(
        ['Restock', 'Your size is back', 'herald.button', 'https://img.example.com/shoe.png', { id: 'buy', text: 'Buy now' }, { sku: 'A1', size: '42' }],
      );
    }
    for (const token of inactive) expect(stack.sim.deliveries(token)).to.have.length(0);
  });

  it('takes the longest value of each field through to the device', async () => {
    const [device] = await addDevices(env.pool, appId, 1, { prefix: 'c1', language: 'en' });
    const subscription = (await env.pool.query('SELECT id FROM subscriptions WHERE token = $1', [device])).rows[0].id as string;
    const long = {
      heading_0: 'H'.repeat(120), subtitle_0: 'S'.repeat(120), content_0: 'C'.repeat(100),
      url: `https://example.com/${'u'.repeat(500 - 20)}`, image: `https://example.com/${'i'.repeat(2048 - 20)}`,
      button_text: 'T'.repeat(40), button_id: 'I'.repeat(40), data_key_0: 'K'.repeat(40), data_value_0: 'V'.repeat(400), ios_sound: 's'.repeat(60),
    };
    await page.goto(`${stack.api.url}/dashboard/compose`);
    for (const [name, value] of Object.entries(long)) {
      expect(Number(await page.locator(`[name="${name}"]`).getAttribute('maxlength')), name).to.be.at.least(value.length);
    }
    await fill(long);
    await page.getByLabel('Send to').selectOption('subscription_ids');
    await page.getByLabel('Ids (one per line, up to 500)').fill(subscription);
    await page.getByRole('button', { name: 'Review' }).click();
    await page.getByRole('button', { name: 'Send to 1 device' }).click();
    expect((await waitFinal(env.pool, await sentId())).final).to.include({ sent: 1 });
    const p = received(device);
    expect([p.aps.alert.title, p.aps.alert.subtitle, p.aps.alert.body, p.custom.u, p.custom.m, p.custom.b, p.custom.a, p.aps.sound]).to.deep.equal([
      long.heading_0, long.subtitle_0, long.content_0, long.url, long.image, { id: long.button_id, text: long.button_text }, { [long.data_key_0]: long.data_value_0 }, long.ios_sound,
    ]);
  });

  it('reads filters as JSON with the REST rules, and delivers in each device\'s time zone', async () => {
    await page.goto(`${stack.api.url}/dashboard/compose`);
    await fill({ content_0: 'Good morning' });
    await page.getByLabel('Send to').selectOption('filters');
    await page.locator('textarea[name="filters"]').fill('[{"field": "tag", "key": "cohort"');
    await page.getByRole('button', { name: 'Review' }).click();
    expect(await text('#audience-errors')).to.match(/^filters is not JSON: write it as \[/);
    await page.locator('textarea[name="filters"]').fill('[{"field": "tag", "key": "cohort", "relation": "=", "value": "x"}, {"field": "color"}]');
    await page.getByRole('button', { name: 'Review' }).click();
    expect(await text('#audience-errors')).to.contain('filters[1]'); // the REST rule's own sentence, naming the entry
    await page.locator('textarea[name="filters"]').fill('[{"field": "tag", "key": "cohort", "relation": "=", "value": "x"}, {"field": "language", "relation": "=", "value": "en"}]');
    const day = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    await page.getByLabel('Send at (empty: now)').fill(`${day}T09:00`);
    await page.getByLabel('Time zone').selectOption('Europe/Paris');
    await page.getByLabel('Delivered').selectOption('timezone');
    await page.getByRole('button', { name: 'Review' }).click();
    expect(await text('#review-summary dd[data-field="Audience"]')).to.equal('filters (1 group)');
    expect(await text('#when')).to.match(new RegExp(`^09:00 in each device's own time zone, from ${day}\u00a0\\d\\d:00\u00a0UTC \\(${day} 09:00 Europe/Paris\\)$`));
    await page.getByRole('button', { name: /^Send to/ }).click();
    const id = await sentId();
    const row = (await env.pool.query(`SELECT status, request->'timezoneDelivery' AS tz FROM sends WHERE id = $1`, [id])).rows[0];
    expect(row).to.deep.equal({ status: 'scheduled', tz: { timeOfDay: '09:00', fallbackOffsetMinutes: 60 } });
  });

  it('makes a template with every field createTemplate takes, refusing with its sentences; edits, copies and deletes it', async () => {
    await page.goto(`${stack.api.url}/dashboard/templates`);
    await page.getByRole('link', { name: 'New template' }).click();
    await page.locator('[name="image"]').fill('http://img.example.com/a.png');
    await page.getByRole('button', { name: 'Create the template' }).click();
    expect(await text('#template_name-errors')).to.equal('name must be text of at least one character.'); // the REST call's sentence for an empty name
    await fill({ template_name: 'Spring <sale>' });
    await page.getByRole('button', { name: 'Create the template' }).click();
    expect(await text('#contents-errors')).to.contain('contents needs the message text in at least one language.');
    expect(await text('#image-errors')).to.equal('big_picture must be an https image address.');
    await fill({ heading_0: 'Spring', content_0: 'Twenty percent off', image: 'https://img.example.com/a.png', url: 'https://example.com/spring' });
    await page.locator('[name="lang_1"]').selectOption('fr');
    await fill({ content_1: 'Vingt pour cent', button_text: 'Shop', button_id: 'shop', data_key_0: 'promo', data_value_0: 'S20', ios_sound: 'bell.caf' });
    await page.locator('select[name="ios_badgeType"]').selectOption('SetTo');
    await fill({ ios_badgeCount: '2' });
    await page.getByLabel('Interruption level').selectOption('passive');
    await page.locator('summary', { hasText: 'More iOS options' }).click();
    await fill({ ios_category: 'SALE', thread_id: 'sales', summary_arg: 'the shop', summary_arg_count: '3', ios_relevance_score: '0.5', target_content_identifier: 'spring', apns_alert: '{"loc-key": "SALE"' });
    await page.locator('[name="mutable_content"]').check();
    await page.getByRole('button', { name: 'Create the template' }).click();
    expect(await text('#apns_alert-errors')).to.match(/^apns_alert is not JSON: write it as \{/);
    await fill({ apns_alert: '{"loc-key": "SALE"}' });
    await page.getByRole('button', { name: 'Create the template' }).click();
    // The REST rule between two fields, its sentence placed under the field it names.
    expect(await text('#ios_category-errors')).to.equal('ios_category and buttons both set the notification category. Send one of them.');
    await fill({ ios_category: '' });
    await page.getByRole('button', { name: 'Create the template' }).click();
    await page.waitForURL(/\/dashboard\/templates\/[0-9a-f-]{36}$/);
    const id = new URL(page.url()).pathname.split('/').pop()!;
    // Its page is titled by its name, shows its message and its preview.
    expect(await page.title()).to.equal('Spring <sale> · Herald');
    expect(await text('#template-name')).to.equal('Spring <sale>');
    expect(await page.locator('#message-fields dd[data-field="Template"]').count()).to.equal(0);
    expect(await text('#preview [data-preview="heading"]')).to.equal('Spring');
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'template-made.png'), fullPage: true });
    const rest = async () => (await stack.api.request('GET', `/api/v1/templates/${id}?app_id=${appId}`, { key: stack.key })).body;
    expect((await rest()).content).to.deep.equal({
      contents: { en: 'Twenty percent off', fr: 'Vingt pour cent' }, headings: { en: 'Spring' }, url: 'https://example.com/spring', big_picture: 'https://img.example.com/a.png',
      buttons: [{ id: 'shop', text: 'Shop' }], data: { promo: 'S20' }, ios_sound: 'bell.caf', ios_badgeType: 'SetTo', ios_badgeCount: 2, ios_interruption_level: 'passive',
      thread_id: 'sales', summary_arg: 'the shop', summary_arg_count: 3, ios_relevance_score: 0.5, target_content_identifier: 'spring', mutable_content: true,
      apns_alert: { 'loc-key': 'SALE' },
    });
    // Edit: the form is the whole template, so what is emptied goes.
    await page.locator('#edit-template').click();
    expect(await page.locator('[name="data_value_0"]').inputValue()).to.equal('S20');
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'template-edit.png'), fullPage: true });
    await fill({ content_0: 'Thirty percent off', data_key_0: '', data_value_0: '', thread_id: '' });
    await page.getByRole('button', { name: 'Save the template' }).click();
    await page.waitForURL(`${stack.api.url}/dashboard/templates/${id}`);
    const edited = (await rest()).content;
    expect(edited.contents.en).to.equal('Thirty percent off');
    expect(edited).to.not.have.any.keys('data', 'thread_id');
    expect(edited.buttons).to.deep.equal([{ id: 'shop', text: 'Shop' }]);
    // Copy: a new template of the same content, opened in the editor.
    await page.locator('#copy-template').click();
    await page.waitForURL(/\/edit$/);
    expect(await page.locator('[name="template_name"]').inputValue()).to.equal('Spring <sale> (copy)');
    const copy = new URL(page.url()).pathname.split('/').at(-2)!;
    expect(copy).to.not.equal(id);
    // Delete the copy, behind its question.
    await page.goto(`${stack.api.url}/dashboard/templates/${copy}`);
    await page.locator('#delete-template').click();
    await page.getByRole('link', { name: 'No, keep it' }).click();
    expect((await stack.api.request('GET', `/api/v1/templates/${copy}?app_id=${appId}`, { key: stack.key })).status).to.equal(200);
    await page.locator('#delete-template').click();
    await page.getByRole('button', { name: 'Yes, delete Spring <sale> (copy)' }).click();
    expect(await text('#notice')).to.equal('Template Spring <sale> (copy) was deleted.');
    expect((await stack.api.request('GET', `/api/v1/templates/${copy}?app_id=${appId}`, { key: stack.key })).status).to.equal(404);

    // Sent from compose: the simulator receives the template's content as edited.
    await page.goto(`${stack.api.url}/dashboard/templates/${id}`);
    await page.locator('#compose-from').click();
    await page.getByLabel('Send to').selectOption('tag');
    await fill({ tag_key: 'cohort', tag_value: 'x' });
    await page.getByRole('checkbox', { name: 'Inactive Users' }).check();
    await page.getByRole('button', { name: 'Review' }).click();
    expect(await text('#message-fields dd[data-field="Template"]')).to.equal('Spring <sale>');
    await page.getByRole('button', { name: 'Send to 3 devices' }).click();
    expect((await waitFinal(env.pool, await sentId())).final).to.include({ sent: 3 });
    const p = received(active[0]);
    expect([p.aps.alert.title, p.aps.alert.body, p.aps.sound, p.aps.badge, p.aps['thread-id'], p.custom.b, p.custom.a]).to.deep.equal(['Spring', 'Thirty percent off', 'bell.caf', 2, undefined, { id: 'shop', text: 'Shop' }, undefined]);
  });
});
