// Android in compose, the review, the report and the template editor, in a real browser against the
// real api and PostgreSQL (issue 39 point 8, issue 40 point 4): a send with every Android field,
// for Android only, goes through the REST rules and is stored with SendRequest.android and
// platforms ['android']; the review and the report list each Android field; the Android preview
// follows the form; a bad accent colour is refused with the REST call's own sentence beside its
// field; the template editor round-trips the Android fields and the platform choice.
import { expect } from 'chai';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { addDevices, makeApp, type TestApp } from '../support/apps.js';
import { signedInBrowser, type TestBrowser } from '../support/browser.js';
import { NO_ACCENT } from '../../api/dashboard/pages/android-preview.js';

const SHOTS = process.env.HERALD_DASHBOARD_SCREENSHOTS;
const ANDROID = { android_channel_id: 'news', small_icon: 'ic_stat_bell', android_accent_color: 'FF0099CC', android_sound: 'chime', android_group: 'scores' };

describe('dashboard: Android in compose, review, report and the template editor', function () {
  this.timeout(60_000);
  const env = useTestEnv();
  const api = useTestApi(env);
  let app: TestApp;
  let browser: TestBrowser;
  let page: Page;

  const text = (selector: string) => page.locator(selector).textContent();
  const fill = async (fields: Record<string, string>) => {
    for (const [name, value] of Object.entries(fields)) await page.locator(`[name="${name}"]`).fill(value);
  };
  const dd = (section: string, label: string) => text(`#${section} dd[data-field="${label}"]`);

  before(async function () {
    this.timeout(180_000);
    app = await makeApp(env.pool);
    await addDevices(env.pool, app.app.id, [{ language: 'en' }, { language: 'en' }, { language: 'en' }]);
    for (let i = 0; i < 2; i++) {
      const res = await api.request('POST', `/api/v1/apps/${app.app.id}/subscriptions`, { body: { type: 'AndroidPush', token: `dAsh:APA91b-${i}_${'Zq'.repeat(60)}` } });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    }
    ({ browser, page } = await signedInBrowser(api.url, app.key));
  });

  after(async () => {
    await browser?.close();
  });

  it("sends every Android field to Android only: the preview follows, Review lists each field, the stored request has them and platforms ['android'], the report shows them", async () => {
    await page.goto(`${api.url}/dashboard/compose`);
    await fill({ name: 'Android scores', heading_0: 'Goal!', content_0: '2-1 in the 90th', image: 'https://img.example.com/goal.png', ...ANDROID });
    await page.locator('#live-estimate', { hasText: 'Estimate: 5 devices now.' }).waitFor();
    await page.getByLabel('Platforms').selectOption('android');
    await page.locator('#live-estimate', { hasText: 'Estimate: 2 devices now.' }).waitFor();
    // The Android card, kept live by dashboard.js: texts, the icon's name, the tint (#RRGGBB), the big picture.
    const card = '#android-preview';
    expect(await text(`${card} [data-preview="heading"]`)).to.equal('Goal!');
    expect(await text(`${card} [data-preview="small_icon"]`)).to.equal('ic_stat_bell');
    expect(await page.locator(`${card} [data-preview="accent"]`).getAttribute('fill')).to.equal('#0099CC');
    expect(await text(`${card} [data-preview="image_url"]`)).to.equal('https://img.example.com/goal.png');
    expect(await page.locator('#preview [data-preview="left-out"]').isVisible()).to.equal(true);
    expect(await page.locator(`${card} [data-preview="left-out"]`).isVisible()).to.equal(false);
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'compose-android.png'), fullPage: true });
    await page.getByRole('button', { name: 'Review' }).click();
    expect(await text('#estimate')).to.equal('2 devices');
    expect(await dd('message-fields', 'Platforms')).to.equal('Android only');
    const listed = { Channel: 'news', 'Small icon': 'ic_stat_bell', 'Accent colour': 'FF0099CC (#0099CC)', Sound: 'chime', Group: 'scores', Priority: 'high' };
    for (const [label, value] of Object.entries(listed)) expect(await dd('android', label), label).to.equal(value);
    expect(await dd('ios', 'Sent to iOS')).to.equal('no: this message is for Android only');
    // The server draws the same card on Review (no script needed).
    expect(await page.locator('#android-preview [data-preview="accent"]').getAttribute('fill')).to.equal('#0099CC');
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'compose-android-review.png'), fullPage: true });
    await page.getByRole('button', { name: 'Send to 2 devices' }).click();
    await page.waitForURL(/\/dashboard\/sends\/\d+$/);
    const id = Number(new URL(page.url()).pathname.split('/').pop());
    const request = (await env.pool.query('SELECT request FROM sends WHERE id = $1 AND app_id = $2', [id, app.app.id])).rows[0].request;
    expect([request.android, request.platforms]).to.deep.equal([{ channelId: 'news', smallIcon: 'ic_stat_bell', accentColor: 'FF0099CC', sound: 'chime', group: 'scores' }, ['android']]);
    // The report: the platforms and every Android field of the sent send.
    expect(await dd('message-fields', 'Platforms')).to.equal('Android only');
    for (const [label, value] of Object.entries(listed)) expect(await dd('android', label), label).to.equal(value);
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'report-android.png'), fullPage: true });
  });

  it("refuses a bad accent colour with the REST call's sentence beside its field, and iOS only leaves Android out", async () => {
    await page.goto(`${api.url}/dashboard/compose`);
    await fill({ content_0: 'Hi', android_accent_color: '#09C' });
    // Not a colour the rule takes: the preview keeps Android's grey.
    expect(await page.locator('#android-preview [data-preview="accent"]').getAttribute('fill')).to.equal(NO_ACCENT);
    await page.getByRole('button', { name: 'Review' }).click();
    const rest = await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'Hi' }, included_segments: ['Subscribed Users'], android_accent_color: '#09C' } });
    expect(rest.status).to.equal(422);
    expect(await text('#android_accent_color-errors')).to.equal(rest.body.errors[0]);
    expect(await page.locator('[name="android_accent_color"]').getAttribute('aria-invalid')).to.equal('true');
    await fill({ android_accent_color: '' });
    await page.getByLabel('Platforms').selectOption('ios');
    expect(await page.locator('#android-preview [data-preview="left-out"]').isVisible()).to.equal(true);
    await page.getByRole('button', { name: 'Review' }).click();
    expect(await text('#estimate')).to.equal('3 devices');
    expect(await dd('message-fields', 'Platforms')).to.equal('iOS only');
    expect(await dd('android', 'Sent to Android')).to.equal('no: this message is for iOS only');
  });

  it('the template editor round-trips the Android fields and the platform choice; compose from it sends them', async () => {
    await page.goto(`${api.url}/dashboard/templates/new`);
    await fill({ template_name: 'Android promo', content_0: 'Sale', ...ANDROID, android_accent_color: 'FF0099C' });
    await page.getByLabel('Platforms').selectOption('android');
    await page.getByRole('button', { name: 'Create the template' }).click();
    const rest = await api.request('POST', '/api/v1/templates', { key: app.key, body: { app_id: app.app.id, name: 'x', contents: { en: 'Sale' }, android_accent_color: 'FF0099C' } });
    expect(await text('#android_accent_color-errors')).to.equal(rest.body.errors[0]);
    await fill({ android_accent_color: ANDROID.android_accent_color });
    await page.getByRole('button', { name: 'Create the template' }).click();
    await page.waitForURL(/\/dashboard\/templates\/[0-9a-f-]{36}$/);
    const id = new URL(page.url()).pathname.split('/').pop()!;
    const content = async () => (await api.request('GET', `/api/v1/templates/${id}?app_id=${app.app.id}`, { key: app.key })).body.content;
    expect(await content()).to.deep.equal({ contents: { en: 'Sale' }, ...ANDROID, isIos: false });
    expect(await dd('android', 'Channel')).to.equal('news');
    // Edit: the form is filled from the template; what is emptied goes, the choice changes.
    await page.locator('#edit-template').click();
    for (const [name, value] of Object.entries(ANDROID)) expect(await page.locator(`[name="${name}"]`).inputValue(), name).to.equal(value);
    expect(await page.getByLabel('Platforms').inputValue()).to.equal('android');
    await fill({ android_group: '', android_channel_id: '', existing_android_channel_id: 'app-made' });
    await page.getByLabel('Platforms').selectOption('');
    await page.getByRole('button', { name: 'Save the template' }).click();
    await page.waitForURL(`${api.url}/dashboard/templates/${id}`);
    const { android_group: _g, android_channel_id: _c, ...kept } = ANDROID;
    expect(await content()).to.deep.equal({ contents: { en: 'Sale' }, ...kept, existing_android_channel_id: 'app-made' });
    // Compose from it, choosing Android only there: the send carries the template's fields and the choice.
    await page.locator('#compose-from').click();
    expect(await page.locator('[name="existing_android_channel_id"]').inputValue()).to.equal('app-made');
    await page.getByLabel('Platforms').selectOption('android');
    await page.getByRole('button', { name: 'Review' }).click();
    await page.getByRole('button', { name: 'Send to 2 devices' }).click();
    await page.waitForURL(/\/dashboard\/sends\/\d+$/);
    const sendId = Number(new URL(page.url()).pathname.split('/').pop());
    const request = (await env.pool.query('SELECT request FROM sends WHERE id = $1', [sendId])).rows[0].request;
    expect([request.android, request.platforms]).to.deep.equal([{ channelId: 'app-made', smallIcon: 'ic_stat_bell', accentColor: 'FF0099CC', sound: 'chime' }, ['android']]);
  });
});
