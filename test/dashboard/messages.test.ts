// The whole message in the dashboard (issue 30 point 6) in a real browser, api, sender and APNs
// simulator: a report shows every language, link, data, button, iOS field and its template; the
// templates pages list and show them a page at a time (a read key changes none); compose from a
// template sends exactly its content (read at the simulator); Review lists all that goes out; user
// text renders as text; another app's template is not found.
import { expect } from 'chai';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { useTestEnv } from '../env/index.js';
import { launchBrowser, type TestBrowser } from '../support/browser.js';
import { createTemplate } from '../../core/templates/template-store.js';
import { createKey } from '../../core/apps/keys.js';
import { zonedInstant } from '../../core/time/zone-clock.js';
import { addDevices, createTestApp, startDeliveryStack, waitFinal, type DeliveryStack } from '../delivery/fixtures.js';

const SHOTS = process.env.HERALD_DASHBOARD_SCREENSHOTS;
const SCRIPT_NAME = '<script>window.pwned = 1</script> Sale';
const SCRIPT_TEXT = 'Sale <img src=x onerror="window.pwned = 2"> today';

describe('dashboard: the whole message, templates and compose from a template', function () {
  this.timeout(60_000);
  const env = useTestEnv();
  let stack: DeliveryStack;
  let browser: TestBrowser;
  let page: Page;
  let appId: string;
  let otherTemplate: string;

  const makeTemplate = async (body: Record<string, unknown>) => {
    const res = await stack.api.request('POST', '/api/v1/templates', { key: stack.key, body: { app_id: appId, ...body } });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.id as string;
  };
  const shot = async (name: string) => {
    if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  };
  const status = async (path: string) => (await page.request.get(`${stack.api.url}${path}`)).status();
  const text = (selector: string) => page.locator(selector).textContent();
  const noScriptRan = async () => expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).to.equal(undefined);

  before(async function () {
    this.timeout(180_000);
    stack = await startDeliveryStack(env, 'msgshop');
    appId = stack.app.app.id;
    // 25 templates first: a full first page, so the test's own are on page 2 (oldest first).
    for (let i = 0; i < 25; i++) await createTemplate(env.pool, appId, { name: `Filler ${String(i).padStart(2, '0')}`, content: { contents: { en: `Filler ${i}` } } });
    const other = await createTestApp(env.pool, 'msgelsewhere');
    otherTemplate = (await createTemplate(env.pool, other.app.id, { name: 'Not yours', content: { contents: { en: 'Not yours' } } })).id;
    browser = await launchBrowser();
    page = await browser.context.newPage();
    await page.goto(`${stack.api.url}/dashboard/sign-in`);
    await page.getByLabel('REST API key of your app').fill(stack.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${stack.api.url}/dashboard/`);
  });

  after(async () => {
    await browser?.close();
    await stack?.close();
  });

  it("shows a send's every language, link, data, button, iOS fields and template on its report, user text as text", async () => {
    const template = await makeTemplate({
      name: SCRIPT_NAME, contents: { en: SCRIPT_TEXT, fr: 'Soldes <script>window.pwned = 3</script>' }, headings: { en: 'Shop', fr: 'Boutique' },
      subtitle: { en: 'Big' }, url: 'https://example.com/sale', data: { promo: 'p1' }, buttons: [{ id: 'open', text: 'Open it' }], summary_arg: 'the shop',
    });
    // The send's own data and thread id join the template's; its data wins over the template's.
    const sent = await stack.api.request('POST', '/api/v1/notifications', {
      key: stack.key,
      body: { app_id: appId, template_id: template.toUpperCase(), data: { promo: 'p2', tier: 'gold' }, thread_id: 't1', included_segments: ['All'], send_after: new Date(Date.now() + 86_400_000).toISOString() },
    });
    expect(sent.body.id, JSON.stringify(sent.body)).to.be.a('number');
    await page.goto(`${stack.api.url}/dashboard/sends/${sent.body.id}`);
    const lang = (l: string, cell: string) => text(`#languages tr[data-lang="${l}"] td.${cell}`);
    expect(await page.locator('#languages tbody tr').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.lang))).to.deep.equal(['en', 'fr']);
    expect([await lang('en', 'heading'), await lang('en', 'subtitle'), await lang('en', 'content')]).to.deep.equal(['Shop', 'Big', SCRIPT_TEXT]);
    expect([await lang('fr', 'heading'), await lang('fr', 'subtitle'), await lang('fr', 'content')]).to.deep.equal(['Boutique', '', 'Soldes <script>window.pwned = 3</script>']);
    expect(await text('#message-fields dd[data-field="Link"]')).to.equal('https://example.com/sale');
    expect(await text('#message-fields dd[data-field="Button"]')).to.equal('Open it (id open)');
    expect(await page.locator('#data tbody tr').evaluateAll((rows) => rows.map((r) => [r.querySelector('th')!.textContent, r.querySelector('td')!.textContent]))).to.deep.equal([['promo', 'p2'], ['tier', 'gold']]);
    expect(await text('#ios dd[data-field="Summary argument"]')).to.equal('the shop');
    expect(await text('#ios dd[data-field="Thread id"]')).to.equal('t1');
    expect(await text('#ios dd[data-field="Subtitle"]')).to.equal('Big');
    const link = page.locator('#message-fields dd[data-field="Template"] a');
    expect(await link.textContent()).to.equal(SCRIPT_NAME);
    await noScriptRan();
    await link.click();
    await page.waitForURL(`${stack.api.url}/dashboard/templates/${template}`);
    expect(await text('#template-name')).to.equal(SCRIPT_NAME);
    expect(await lang('en', 'content')).to.equal(SCRIPT_TEXT);
    expect(await text('#message-fields dd[data-field="Button"]')).to.equal('Open it (id open)');
    await noScriptRan();
    // Deleted since: the report names its id, with no link.
    expect((await stack.api.request('DELETE', `/api/v1/templates/${template}?app_id=${appId}`, { key: stack.key })).status).to.equal(200);
    await page.goto(`${stack.api.url}/dashboard/sends/${sent.body.id}`);
    expect(await text('#message-fields dd[data-field="Template"]')).to.equal(`${template} (deleted since)`);
  });

  it('a send of no template shows none, and a background push says it has no alert text', async () => {
    const sent = await stack.api.request('POST', '/api/v1/notifications', {
      key: stack.key, body: { app_id: appId, content_available: true, included_segments: ['All'], send_after: new Date(Date.now() + 86_400_000).toISOString() },
    });
    await page.goto(`${stack.api.url}/dashboard/sends/${sent.body.id}`);
    expect(await text('#message-fields dd[data-field="Template"]')).to.equal('—');
    expect(await text('#languages')).to.equal("No alert text (a background push, or a Live Activity's content state only).");
    expect(await text('#data')).to.equal('None.');
  });

  it('lists the templates 25 a page, oldest first, names as text; a page out of range is refused; another app\'s template is not found', async () => {
    const late = await makeTemplate({ name: SCRIPT_NAME, contents: { en: 'Late one' } });
    await page.goto(`${stack.api.url}/dashboard/templates`);
    const names = () => page.locator('#templates tbody td[data-label="Name"]').allTextContents();
    const first = await names();
    expect(first).to.have.length(25);
    expect(first[0]).to.equal('Filler 00');
    expect(first[24]).to.equal('Filler 24');
    await page.getByRole('link', { name: 'Next page' }).click();
    await page.waitForURL(/page=2$/);
    const second = await names();
    expect(second.at(-1)).to.equal(SCRIPT_NAME);
    expect(await page.locator(`#templates tr[data-id="${late}"] td[data-label="Text"]`).textContent()).to.equal('Late one');
    expect(await text('#total')).to.match(/^26–\d+ of \d+ templates$/);
    await noScriptRan();
    expect(await page.getByRole('link', { name: 'Next page' }).count()).to.equal(0);
    await shot('templates');
    // The edges: page 40 is the last an app's 1,000 templates can fill (empty here); 0, 41 and text are refused.
    expect(await status('/dashboard/templates?page=40')).to.equal(200);
    for (const bad of ['0', '41', 'two', '-1']) expect(await status(`/dashboard/templates?page=${bad}`), bad).to.equal(400);
    await page.goto(`${stack.api.url}/dashboard/templates?page=41`);
    expect(await page.getByRole('alert').textContent()).to.equal('page must be a whole number from 1 to 40.');
    // Another app's template: not listed, not shown, not a start for compose.
    expect(await page.request.get(`${stack.api.url}/dashboard/templates?page=2`).then((r) => r.text())).to.not.contain('Not yours');
    expect(await status(`/dashboard/templates/${otherTemplate}`)).to.equal(404);
    expect(await status(`/dashboard/compose?template=${otherTemplate}`)).to.equal(404);
    expect(await status('/dashboard/templates/not-a-uuid')).to.equal(404);
  });

  it("composes from a template: the form is filled from it, review shows it all, and the simulator receives exactly the template's content in each language", async () => {
    const english = await addDevices(env.pool, appId, 2, { prefix: 'e1', language: 'en', tags: { tpl: 'yes' } });
    const french = await addDevices(env.pool, appId, 2, { prefix: 'f1', language: 'fr', tags: { tpl: 'yes' } });
    const template = await makeTemplate({
      name: 'Restock', contents: { en: 'Back in stock', fr: 'De retour' }, headings: { en: 'Shop', fr: 'Boutique' }, subtitle: { fr: 'Taille 42' },
      url: 'https://example.com/restock', data: { sku: 'A1' }, buttons: [{ id: 'buy', text: 'Buy' }], ios_sound: 'chime.caf', thread_id: 'stock',
    });
    await page.goto(`${stack.api.url}/dashboard/templates/${template}`);
    await shot('template');
    await page.locator('#compose-from').click();
    await page.waitForURL(`${stack.api.url}/dashboard/compose?template=${template}`);
    const value = (name: string) => page.locator(`[name="${name}"]`).inputValue();
    expect([await value('lang_0'), await value('heading_0'), await value('content_0')]).to.deep.equal(['en', 'Shop', 'Back in stock']);
    expect([await value('lang_1'), await value('heading_1'), await value('subtitle_1'), await value('content_1')]).to.deep.equal(['fr', 'Boutique', 'Taille 42', 'De retour']);
    expect([await value('url'), await value('ios_sound'), await value('template_id')]).to.deep.equal(['https://example.com/restock', 'chime.caf', template]);
    expect(await text('#template-note')).to.contain('any other field emptied here keeps the template\'s value');
    // Every field of the template has its input here: data, button, thread id included.
    expect([await value('data_key_0'), await value('data_value_0'), await value('button_id'), await value('thread_id')]).to.deep.equal(['sku', 'A1', 'buy', 'stock']);
    await shot('compose-template');
    await page.getByLabel('Send to').selectOption('tag');
    await page.getByLabel('Tag key').fill('tpl');
    await page.getByLabel('Value', { exact: true }).fill('yes');
    await page.getByRole('button', { name: 'Review' }).click();
    // Review: what goes out, the template's fields that compose has no input for included.
    expect(await text('#estimate')).to.equal('4 devices');
    expect(await text('#message-fields dd[data-field="Template"]')).to.equal('Restock');
    expect(await text('#message-fields dd[data-field="Button"]')).to.equal('Buy (id buy)');
    expect(await text('#data tbody td')).to.equal('A1');
    expect(await text('#ios dd[data-field="Thread id"]')).to.equal('stock');
    expect(await text('#languages tr[data-lang="fr"] td.subtitle')).to.equal('Taille 42');
    await shot('compose-review-template');
    await page.getByRole('button', { name: 'Send to 4 devices' }).click();
    await page.waitForURL(/\/dashboard\/sends\/\d+$/);
    const id = Number(new URL(page.url()).pathname.split('/').pop());
    expect((await waitFinal(env.pool, id)).final).to.include({ sent: 4, failed: 0 });
    const received = (tokens: string[]) =>
      tokens.map((t) => {
        const p = JSON.parse(stack.sim.deliveries(t).at(-1)!.payload) as { aps: { alert: { title: string; subtitle?: string; body: string }; sound?: string; 'thread-id'?: string }; custom: { u?: string; a?: Record<string, string> } };
        return [p.aps.alert.title, p.aps.alert.subtitle, p.aps.alert.body, p.aps.sound, p.aps['thread-id'], p.custom.u, p.custom.a?.sku];
      });
    expect(received(english)).to.deep.equal(Array(2).fill(['Shop', undefined, 'Back in stock', 'chime.caf', 'stock', 'https://example.com/restock', 'A1']));
    expect(received(french)).to.deep.equal(Array(2).fill(['Boutique', 'Taille 42', 'De retour', 'chime.caf', 'stock', 'https://example.com/restock', 'A1']));
    // The recorded send names its template, as a REST send with template_id does.
    await page.goto(`${stack.api.url}/dashboard/sends/${id}`);
    expect(await text('#message-fields dd[data-field="Template"]')).to.equal('Restock');
    await shot('report-message');
  });

  it('composing from a template, the texts typed replace the template\'s whole; a template deleted before Send is refused naming it', async () => {
    const template = await makeTemplate({ name: 'Two languages', contents: { en: 'Hello', de: 'Hallo' }, headings: { en: 'Hi' } });
    // Chosen in compose's own chooser; its empty choice is no template.
    expect(await status('/dashboard/compose?template=')).to.equal(200);
    await page.goto(`${stack.api.url}/dashboard/compose`);
    await page.getByLabel('Start from a template').selectOption({ label: 'Two languages' });
    await page.getByRole('button', { name: 'Use this template' }).click();
    await page.waitForURL(`${stack.api.url}/dashboard/compose?template=${template}`);
    expect(await page.locator('[name="content_1"]').inputValue()).to.equal('Hallo');
    await page.locator('[name="lang_1"]').selectOption('');
    await page.locator('[name="heading_0"]').fill('');
    await page.locator('[name="content_0"]').fill('Hello there');
    await page.getByRole('button', { name: 'Review' }).click();
    expect(await page.locator('#languages tbody tr').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.lang))).to.deep.equal(['en']);
    expect(await text('#languages tr[data-lang="en"] td.heading')).to.equal('');
    expect(await text('#languages tr[data-lang="en"] td.content')).to.equal('Hello there');
    await stack.api.request('DELETE', `/api/v1/templates/${template}?app_id=${appId}`, { key: stack.key });
    await page.getByRole('button', { name: /^Send to/ }).click();
    expect(await page.getByRole('alert').first().textContent()).to.contain(`template_id "${template}" names no template of this app.`);
  });

  it("composing from a template sends its text exactly (line breaks in the text and title, a leading one), its app_url link, and a template changed after Review is reviewed again before it goes out", async () => {
    const [device] = await addDevices(env.pool, appId, 1, { prefix: 'c7', language: 'en', tags: { lines: 'yes' } });
    const body = '\nLine one\nLine two';
    const template = await makeTemplate({ name: 'Lines', contents: { en: body }, headings: { en: 'Title\nsecond' }, app_url: 'https://example.com/app', data: { v: '1' } });
    await page.goto(`${stack.api.url}/dashboard/compose?template=${template}`);
    const value = (name: string) => page.locator(`[name="${name}"]`).inputValue();
    expect([await value('content_0'), await value('heading_0'), await value('url')]).to.deep.equal([body, 'Title\nsecond', 'https://example.com/app']);
    // Data emptied here keeps the template's (the REST rule: absent fields come from the template).
    await page.locator('[name="data_key_0"]').fill('');
    await page.locator('[name="data_value_0"]').fill('');
    await page.getByLabel('Send to').selectOption('tag');
    await page.getByLabel('Tag key').fill('lines');
    await page.getByLabel('Value', { exact: true }).fill('yes');
    await page.getByRole('button', { name: 'Review' }).click();
    expect(await text('#data tbody td')).to.equal('1');
    // Changed between Review and Send: Send shows Review again with what goes out now, and a notice.
    const changed = await stack.api.request('PATCH', `/api/v1/templates/${template}`, {
      key: stack.key, body: { app_id: appId, name: 'Lines', contents: { en: body }, headings: { en: 'Title\nsecond' }, app_url: 'https://example.com/app', data: { v: '2' } },
    });
    expect(changed.status, JSON.stringify(changed.body)).to.equal(200);
    const [again] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.getByRole('button', { name: 'Send to 1 device' }).click()]);
    expect(again.status()).to.equal(409);
    expect(await text('#review-notice')).to.equal('The template changed after this review: check the message below, then send it again.');
    expect(await text('#data tbody td')).to.equal('2');
    expect(await stack.sim.deliveries(device)).to.have.length(0);
    await page.getByRole('button', { name: 'Send to 1 device' }).click();
    await page.waitForURL(/\/dashboard\/sends\/\d+$/);
    const id = Number(new URL(page.url()).pathname.split('/').pop());
    expect((await waitFinal(env.pool, id)).final).to.include({ sent: 1, failed: 0 });
    const p = JSON.parse(stack.sim.deliveries(device).at(-1)!.payload) as { aps: { alert: { title: string; body: string } }; custom: { u?: string; a?: Record<string, string> } };
    expect([p.aps.alert.title, p.aps.alert.body, p.custom.u, p.custom.a?.v]).to.deep.equal(['Title\nsecond', body, 'https://example.com/app', '2']);
  });

  it('review lists the name, every language, the iOS fields, link, throttle, schedule and audience with its estimate before Send', async () => {
    await page.goto(`${stack.api.url}/dashboard/compose`);
    await page.getByLabel('Name (internal, never shown to users)').fill('Weekly <digest>');
    await page.locator('[name="heading_0"]').fill('News');
    await page.locator('[name="subtitle_0"]').fill('This week');
    await page.locator('[name="content_0"]').fill('Read <b>all</b> about it');
    await page.locator('[name="lang_1"]').selectOption('de');
    await page.locator('[name="heading_1"]').fill('Neuigkeiten');
    await page.locator('[name="content_1"]').fill('Alles lesen');
    await page.getByLabel('Send to').selectOption('segment');
    await page.getByLabel(/^Sound/).fill('ping.aiff');
    await page.locator('select[name="ios_badgeType"]').selectOption('SetTo');
    await page.getByLabel('Badge count').fill('3');
    await page.getByLabel(/^Time to live/).fill('600');
    await page.getByLabel('Interruption level').selectOption('passive');
    const day = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);
    const [y, m, d] = day.split('-').map(Number);
    const at = zonedInstant({ zone: 'Europe/Paris' }, y, m, d, 9, 30);
    await page.getByLabel('Send at (empty: now)').fill(`${day}T09:30`);
    await page.getByLabel('Time zone').selectOption('Europe/Paris');
    await page.getByLabel(/^Throttle/).fill('600');
    await page.getByLabel('Link (optional)').fill('https://example.com/news');
    await page.getByRole('button', { name: 'Review' }).click();
    const summary = (field: string) => text(`#review-summary dd[data-field="${field}"]`);
    expect(await summary('Name')).to.equal('Weekly <digest>');
    expect(await summary('Audience')).to.equal('Subscribed Users');
    expect(await summary('Throttle')).to.equal('600 per minute');
    expect(await text('#estimate')).to.match(/^\d+ devices?$/);
    expect(await text('#when')).to.equal(`${at.toISOString().slice(0, 16).replace('T', '\u00a0')}\u00a0UTC (${day} 09:30 Europe/Paris)`);
    expect(await page.locator('#languages tbody tr').evaluateAll((rows) => rows.map((r) => [...r.children].map((c) => c.textContent)))).to.deep.equal([
      ['en', 'News', 'This week', 'Read <b>all</b> about it'],
      ['de', 'Neuigkeiten', '', 'Alles lesen'],
    ]);
    expect(await text('#message-fields dd[data-field="Link"]')).to.equal('https://example.com/news');
    const ios = (field: string) => text(`#ios dd[data-field="${field}"]`);
    expect([await ios('Sound'), await ios('Badge'), await ios('Time to live'), await ios('Interruption level')]).to.deep.equal(['ping.aiff', 'set to 3', '600 s', 'passive']);
    // All of it is above the button that sends.
    const [summaryBox, iosBox, buttonBox] = await Promise.all(['#review-summary', '#ios', 'button[value="send"]'].map((s) => page.locator(s).boundingBox()));
    expect(summaryBox!.y).to.be.below(buttonBox!.y);
    expect(iosBox!.y).to.be.below(buttonBox!.y);
  });

  it('offers a read key the templates to see, but no compose from them', async () => {
    const template = await makeTemplate({ name: 'Read only', contents: { en: 'Look' } });
    const readKey = (await createKey(env.pool, appId, { scope: 'read' })).key;
    await page.context().clearCookies();
    await page.goto(`${stack.api.url}/dashboard/sign-in`);
    await page.getByLabel('REST API key of your app').fill(readKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${stack.api.url}/dashboard/`);
    await page.goto(`${stack.api.url}/dashboard/templates/${template}`);
    expect(await text('#languages tr[data-lang="en"] td.content')).to.equal('Look');
    expect(await page.locator('#compose-from').count()).to.equal(0);
    await page.goto(`${stack.api.url}/dashboard/templates?page=2`);
    expect(await page.getByRole('link', { name: 'New message from it' }).count()).to.equal(0);
    expect(await status(`/dashboard/compose?template=${template}`)).to.equal(403);
    expect(await page.locator('#new-template, #edit-template, #delete-template').count(), 'no change to a template offered').to.equal(0);
    for (const path of ['/dashboard/templates/new', `/dashboard/templates/${template}/edit`, `/dashboard/templates/${template}/delete`]) expect(await status(path), path).to.equal(403);
    expect((await page.request.post(`${stack.api.url}/dashboard/templates/${template}/delete`, { form: { _csrf: await page.locator('input[name="_csrf"]').first().inputValue() } })).status()).to.equal(403);
  });
});
