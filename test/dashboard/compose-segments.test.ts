// Compose says what REST says about an audience and a delivery (issue 40 point 4): several ticked
// segments go out as included_segments (their union, counted exactly, worded "Gold or Beta"), from
// 1 to 50 with REST's sentence either side; last-active delivery goes out as delayed_option
// "last-active", with or without a time, and the review's When line says it. Over HTTP, then once
// in Chromium (the boxes ticked, the live estimate following them, the delivery chosen).
import { expect } from 'chai';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { createKey } from '../../core/apps/keys.js';
import { addDevices, createTestApp, type TestApp } from '../delivery/fixtures.js';
import { EVERYONE } from '../../core/formats/built-in-segments.js';
import { signedInBrowser, type TestBrowser } from '../support/browser.js';

const SHOTS = process.env.HERALD_DASHBOARD_SCREENSHOTS;

/** 49 more segments besides Gold and Beta: 51 custom ones, so one past the limit can be ticked. */
const FILLERS = Array.from({ length: 49 }, (_, i) => `S${String(i + 1).padStart(2, '0')}`);

describe('dashboard compose: several segments and last-active delivery', function () {
  this.timeout(60_000);
  const env = useTestEnv({ redis: false });
  const api = useTestApi(env);
  let shop: TestApp;

  before(async () => {
    shop = await createTestApp(env.pool, 'multishop', {
      segments: [
        { name: 'Gold', conditions: [{ key: 'plan', relation: '=', value: 'gold' }] },
        { name: 'Beta', conditions: [{ key: 'beta', relation: 'exists' }] },
        ...FILLERS.map((name) => ({ name, conditions: [{ key: 'filler', relation: '=' as const, value: name }] })),
      ],
    });
    // 30 gold only, 20 beta only, 5 both, 10 neither: the union is 55 (the 5 counted once).
    await addDevices(env.pool, shop.app.id, 30, { prefix: 'g', tags: { plan: 'gold' } });
    await addDevices(env.pool, shop.app.id, 20, { prefix: 'b', tags: { beta: '1' } });
    await addDevices(env.pool, shop.app.id, 5, { prefix: 'gb', tags: { plan: 'gold', beta: '1' } });
    await addDevices(env.pool, shop.app.id, 10, { prefix: 'n', tags: { plan: 'free' } });
  });

  async function session() {
    const key = (await createKey(env.pool, shop.app.id, { name: 'compose', scope: 'send' })).key;
    const signIn = await fetch(`${api.url}/dashboard/sign-in`, {
      method: 'POST', redirect: 'manual', body: new URLSearchParams({ key }), headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0];
    const page = await (await fetch(`${api.url}/dashboard/compose`, { headers: { cookie } })).text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page)![1];
    /** The box of each segment on the form: name → its input's name. */
    const boxes = new Map([...page.matchAll(/name="(segment_\d+)" value="([^"]+)"/g)].map((m) => [m[2], m[1]]));
    const post = async (fields: Record<string, string>) => {
      const res = await fetch(`${api.url}/dashboard/compose`, {
        method: 'POST', redirect: 'manual', body: new URLSearchParams({ _csrf: csrf, ...fields }), headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      });
      return { status: res.status, location: res.headers.get('location'), text: await res.text() };
    };
    const tick = (...names: string[]) => Object.fromEntries(names.map((n) => [boxes.get(n)!, n]));
    return { page, post, tick };
  }
  const reviewForm = (text: string): Record<string, string> => Object.fromEntries([...text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1], m[2]]));
  const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString().slice(0, 16);
  const message = { lang_0: 'en', content_0: 'Members week', target: 'segment' };
  const stored = async (id: number) => (await env.pool.query('SELECT request, total_recipients, target_kind FROM sends WHERE id = $1', [id])).rows[0];

  it('offers every segment as a box, Everyone ticked on a new form', async () => {
    const { page } = await session();
    for (const name of [EVERYONE, 'Gold', 'Beta', 'S49']) expect(page, name).to.match(new RegExp(`name="segment_\\d+" value="${name}"`));
    expect([...page.matchAll(/name="segment_\d+" value="([^"]+)" checked/g)].map((m) => m[1])).to.deep.equal([EVERYONE]);
  });

  it('sends two ticked segments as their union: the review says "Gold or Beta", the send is stored with both names and the exact total', async () => {
    const { post, tick } = await session();
    const review = await post({ ...message, ...tick('Gold', 'Beta'), send_after: tomorrow(), step: 'review' });
    expect(review.status).to.equal(200);
    expect(review.text).to.contain('<dd data-field="Audience">Gold or Beta</dd>');
    expect(/<dd id="estimate">([\d,]+) device/.exec(review.text)![1]).to.equal('55');
    const edit = await post({ ...reviewForm(review.text), step: 'edit' });
    expect([...edit.text.matchAll(/name="segment_\d+" value="([^"]+)" checked/g)].map((m) => m[1]), 'Edit keeps the boxes ticked').to.deep.equal(['Gold', 'Beta']);
    const sent = await post({ ...reviewForm(review.text), step: 'send' });
    expect(sent.status).to.equal(302);
    const row = await stored(Number(sent.location!.split('/').pop()));
    expect(row.target_kind).to.equal('segment');
    expect(row.request.target).to.deep.include({ segment: 'Gold', orSegments: ['Beta'] });
    expect(row.total_recipients).to.equal(55);
  });

  it('refuses none and 51 segments with the REST sentences, and takes 50', async () => {
    const { post, tick } = await session();
    const none = await post({ ...message, step: 'review' });
    expect(none.status).to.equal(422);
    expect(none.text).to.contain('id="audience-errors"').and.contain('included_segments holds 1 to 50 segment names; this request names 0.');
    expect(none.text, 'the form keeps nothing ticked').to.not.match(/name="segment_\d+" value="[^"]+" checked/);
    const fifty = ['Gold', ...FILLERS];
    const taken = await post({ ...message, ...tick(...fifty), send_after: tomorrow(), step: 'review' });
    expect(taken.status).to.equal(200);
    expect(taken.text).to.contain(`<dd data-field="Audience">${fifty.join(' or ')}</dd>`);
    const over = await post({ ...message, ...tick(...fifty, 'Beta'), step: 'review' });
    expect(over.status).to.equal(422);
    expect(over.text).to.contain('included_segments holds 1 to 50 segment names; this request names 51.');
  });

  it('sends at the hour each device was last active: delayed_option last-active, with a time or from now, the review saying so', async () => {
    const { post, tick } = await session();
    const fromNow = await post({ ...message, ...tick('Gold'), delayed_option: 'last-active', step: 'review' });
    expect(fromNow.status).to.equal(200);
    expect(/<dd id="when">([^<]*)</.exec(fromNow.text)![1]).to.equal('At the hour each device was last active, within 24 hours from now');
    const at = tomorrow();
    const review = await post({ ...message, ...tick('Gold'), delayed_option: 'last-active', send_after: at, step: 'review' });
    expect(/<dd id="when">([^<]*)</.exec(review.text)![1]).to.match(/^At the hour each device was last active, within 24 hours from \S/);
    expect(/<option value="last-active" selected>At the hour each device was last active<\/option>/.test(await (await post({ ...reviewForm(review.text), step: 'edit' })).text), 'Edit keeps the choice').to.equal(true);
    const sent = await post({ ...reviewForm(review.text), step: 'send' });
    expect(sent.status).to.equal(302);
    const row = await stored(Number(sent.location!.split('/').pop()));
    expect(row.request.lastActiveDelivery).to.equal(true);
    expect(row.request).to.not.have.property('timezoneDelivery');
    expect(new Date(row.request.sendAfter).toISOString().slice(0, 16)).to.equal(at);
    expect(row.total_recipients).to.equal(35);
  });

  describe('in a browser', () => {
    let browser: TestBrowser;
    let page: Page;
    before(async function () {
      this.timeout(180_000);
      const key = (await createKey(env.pool, shop.app.id, { name: 'browser', scope: 'send' })).key;
      ({ browser, page } = await signedInBrowser(api.url, key));
    });
    after(async () => {
      await browser?.close();
    });

    it('ticks two segments (the estimate follows), picks last-active delivery, reviews and sends it', async () => {
      await page.goto(`${api.url}/dashboard/compose`);
      await page.locator('textarea[name="content_0"]').fill('Members week');
      const boxes = page.locator('fieldset.target-segment');
      await boxes.getByLabel(EVERYONE, { exact: true }).uncheck();
      await page.locator('#live-estimate', { hasText: 'included_segments holds 1 to 50 segment names; this request names 0.' }).waitFor();
      await boxes.getByLabel('Gold', { exact: true }).check();
      await page.locator('#live-estimate', { hasText: 'Estimate: 35 devices now.' }).waitFor();
      await boxes.getByLabel('Beta', { exact: true }).check();
      await page.locator('#live-estimate', { hasText: 'Estimate: 55 devices now.' }).waitFor();
      await page.getByLabel('Delivered').selectOption({ label: 'At the hour each device was last active' });
      if (SHOTS) await page.screenshot({ path: join(SHOTS, 'compose-segments.png'), fullPage: true });
      await page.getByRole('button', { name: 'Review' }).click();
      if (SHOTS) await page.screenshot({ path: join(SHOTS, 'compose-segments-review.png'), fullPage: true });
      expect(await page.locator('dd[data-field="Audience"]').textContent()).to.equal('Gold or Beta');
      expect(await page.locator('#estimate').textContent()).to.equal('55 devices');
      expect(await page.locator('#when').textContent()).to.equal('At the hour each device was last active, within 24 hours from now');
      await page.getByRole('button', { name: 'Send to 55 devices' }).click();
      await page.waitForURL(/\/dashboard\/sends\/\d+$/);
      const row = await stored(Number(page.url().split('/').pop()));
      expect(row.request.target).to.deep.include({ segment: 'Gold', orSegments: ['Beta'] });
      expect(row.request.lastActiveDelivery).to.equal(true);
      expect(row.total_recipients).to.equal(55);
    });
  });
});
