// Segments made and changed in the dashboard (issue 27 points 3 and 7), in a real browser against
// a real api: a new segment's form (the API's rules, a refusal placed by its field), its page (who
// it holds, its size as a send would count it), its edit and its delete (a box to tick), each
// seen by the REST calls and sends; App resource and built-in segments read-only with a note
// saying where they come from; a read key changes nothing; another app's segment is not found.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { launchBrowser, type TestBrowser } from '../support/browser.js';
import { officialClient, refused } from '../support/onesignal.js';
import { createKey } from '../../core/apps/keys.js';
import { segmentsOf } from '../../core/audience/segments.js';
import { getApp } from '../../core/apps/app-store.js';
import { addDevices, createTestApp, type TestApp } from '../delivery/fixtures.js';

describe('dashboard segment pages in a browser', function () {
  this.timeout(60_000);
  const env = useTestEnv();
  const api = useTestApi(env);
  let browser: TestBrowser;
  let page: Page;
  let main: TestApp;
  let sendKey: string;
  let readKey: string;

  const signIn = async (key: string) => {
    await page.context().clearCookies();
    await page.goto(`${api.url}/dashboard/sign-in`);
    await page.getByLabel('REST API key of your app').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${api.url}/dashboard/`);
  };
  const estimate = async (name: string) => {
    const res = await api.request('POST', '/api/v1/notifications', { key: sendKey, body: { app_id: main.app.id, contents: { en: 'x' }, included_segments: [name] } });
    return [res.status, res.body.estimate];
  };

  before(async function () {
    this.timeout(180_000);
    main = await createTestApp(env.pool, 'segshop', { segments: [{ name: 'VIP', conditions: [{ key: 'plan', relation: '=', value: 'gold' }] }] });
    sendKey = (await createKey(env.pool, main.app.id, { name: 'ops', scope: 'send' })).key;
    readKey = (await createKey(env.pool, main.app.id, { name: 'viewer', scope: 'read' })).key;
    await addDevices(env.pool, main.app.id, 4, { prefix: 'd1', tags: { plan: 'gold' }, language: 'fr' });
    await addDevices(env.pool, main.app.id, 2, { prefix: 'd2', tags: { plan: 'free' }, language: 'en' });
    browser = await launchBrowser();
    page = await browser.context.newPage();
    await signIn(sendKey);
  });

  after(async () => {
    await browser?.close();
  });

  it('makes a segment with the API\'s rules: a refusal is placed by its field, then the segment\'s page shows its size', async () => {
    // From the Segments list, as a person finds it.
    await page.goto(`${api.url}/dashboard/audience/segments`);
    await page.getByRole('link', { name: 'New segment' }).click();
    await page.waitForURL(`${api.url}/dashboard/audience/segments/new`);
    await page.getByLabel('Name').fill('Francophones');
    await page.getByLabel(/^Filters/).fill('[{"field": "language", "relation": "~", "value": "fr"}]');
    await page.getByRole('button', { name: 'Create segment' }).click();
    expect(await page.locator('#filters-errors').textContent()).to.contain('filters[0]: a language filter is');
    expect(await page.getByLabel('Name').inputValue()).to.equal('Francophones');
    await page.getByLabel(/^Filters/).fill('not json');
    await page.getByRole('button', { name: 'Create segment' }).click();
    expect(await page.locator('#filters-errors').textContent()).to.contain('filters is not JSON');
    await page.getByLabel(/^Filters/).fill('[{"field": "language", "relation": "=", "value": "fr"}]');
    await page.getByRole('button', { name: 'Create segment' }).click();
    await page.waitForURL(/\/dashboard\/audience\/segments\/[0-9a-f-]{36}$/);
    expect(await page.locator('#segment-name').textContent()).to.equal('Francophones');
    expect(await page.locator('dd.size').textContent()).to.equal('4');
    // The REST calls and sends see it.
    expect(await estimate('Francophones')).to.deep.equal([202, 4]);
    const listed = await officialClient(api.url, sendKey).getSegments(main.app.id);
    expect(listed.segments!.find((s) => s.name === 'Francophones')).to.deep.include({ read_only: false });
    // A name taken: the 409's sentence on the form.
    await page.goto(`${api.url}/dashboard/audience/segments/new`);
    await page.getByLabel('Name').fill('VIP');
    await page.getByLabel(/^Filters/).fill('[{"field": "tag", "key": "plan", "relation": "exists"}]');
    await page.getByRole('button', { name: 'Create segment' }).click();
    expect(await page.locator('#form-errors').textContent()).to.contain('Segment name "VIP" is defined by the App resource');
  });

  it('edits and deletes a segment made through the API; the delete asks for a tick first', async () => {
    const id = segmentsOf((await getApp(env.pool, main.app.id))!).find((s) => s.name === 'Francophones')!.id;
    // The list links each segment to its page.
    await page.goto(`${api.url}/dashboard/audience/segments`);
    await page.locator('#segments').getByRole('link', { name: 'Francophones' }).click();
    await page.waitForURL(`${api.url}/dashboard/audience/segments/${id}`);
    await page.getByLabel('Name').fill('Free plan');
    await page.getByLabel(/^Filters/).fill('[{"field": "tag", "key": "plan", "relation": "=", "value": "free"}]');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.waitForURL(`${api.url}/dashboard/audience/segments/${id}`);
    expect(await page.locator('#segment-name').textContent()).to.equal('Free plan');
    expect(await page.locator('dd.size').textContent()).to.equal('2');
    expect(await estimate('Free plan')).to.deep.equal([202, 2]);
    await page.getByRole('button', { name: 'Delete segment' }).click();
    expect(await page.locator('#delete-errors').textContent()).to.contain('Tick the box');
    expect(await estimate('Free plan')).to.deep.equal([202, 2]);
    await page.getByLabel(/Delete this segment/).check();
    await page.getByRole('button', { name: 'Delete segment' }).click();
    await page.waitForURL(`${api.url}/dashboard/audience/segments`);
    expect((await estimate('Free plan'))[0]).to.equal(422);
    expect((await refused(officialClient(api.url, sendKey).getSegment(main.app.id, id))).code).to.equal(404);
  });

  it('shows App resource and built-in segments read-only, saying where they come from', async () => {
    const segments = segmentsOf((await getApp(env.pool, main.app.id))!);
    const vip = segments.find((s) => s.name === 'VIP')!;
    await page.goto(`${api.url}/dashboard/audience/segments/${vip.id}`);
    expect(await page.locator('#segment-origin').textContent()).to.equal(`Defined by the App resource ${main.app.name} (spec.segments), its GitOps source: change it there, not here.`);
    expect(await page.locator('dd.size').textContent()).to.equal('4');
    expect(await page.getByRole('button', { name: 'Save changes' }).count()).to.equal(0);
    const everyone = segments.find((s) => s.name === 'Subscribed Users')!;
    await page.goto(`${api.url}/dashboard/audience/segments/${everyone.id}`);
    expect(await page.locator('#segment-origin').textContent()).to.contain('Built in');
    expect(await page.locator('dd.size').textContent()).to.equal('6');
  });

  it('a read key sees a segment but no form, and its POST is refused; another app\'s segment is not found', async () => {
    const made = await officialClient(api.url, sendKey).createSegment(main.app.id, { name: 'Kept', filters: [{ field: 'tag', key: 'plan', relation: 'exists' }] } as never);
    const other = await createTestApp(env.pool, 'segelsewhere');
    const otherKey = (await createKey(env.pool, other.app.id)).key;
    const theirs = await officialClient(api.url, otherKey).createSegment(other.app.id, { name: 'Theirs', filters: [{ field: 'tag', key: 'plan', relation: 'exists' }] } as never);
    expect((await page.goto(`${api.url}/dashboard/audience/segments/${theirs.id}`))!.status()).to.equal(404);
    await signIn(readKey);
    const res = await page.goto(`${api.url}/dashboard/audience/segments/${made.id}`);
    expect(res!.status()).to.equal(200);
    expect(await page.getByRole('button', { name: 'Save changes' }).count()).to.equal(0);
    expect((await page.goto(`${api.url}/dashboard/audience/segments/new`))!.status()).to.equal(403);
    await page.goto(`${api.url}/dashboard/audience/segments`);
    expect(await page.getByRole('link', { name: 'New segment' }).count(), 'a read key is offered no New segment').to.equal(0);
    expect(await page.locator('#segments').getByRole('link', { name: 'Kept' }).count()).to.equal(1);
    const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
    const post = await page.request.post(`${api.url}/dashboard/audience/segments/${made.id}/delete`, { form: { _csrf: csrf, confirm: 'yes' } });
    expect(post.status()).to.equal(403);
    expect(await post.text()).to.contain('Making or changing a segment needs a key of scope send.');
    expect((await officialClient(api.url, sendKey).getSegment(main.app.id, made.id!)).payload!.name).to.equal('Kept');
  });
});
