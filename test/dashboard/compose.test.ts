// Compose's steps over HTTP, without a browser: the form's body is checked as a REST body
// (untrusted text refused with the REST sentence at Review, Send and estimate.json), Send draws
// the send's buckets before counting, a review form sends once however often it is posted, and
// the audience's size is counted at most once per 30 s.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { createKey } from '../../core/apps/keys.js';
import { addDevices, createTestApp, type TestApp } from '../delivery/fixtures.js';
import { BucketRateLimiter } from '../../api/rate-limit/bucket-limiter.js';
import { MemoryBucketStore } from '../../core/buckets/memory-store.js';
import { SIZE_KEPT_MS } from '../../api/dashboard/audience-sizes.js';

const NUL_SENTENCE = 'contains U+0000 (a NUL character), which cannot be stored.';

describe('dashboard compose over HTTP', function () {
  this.timeout(60_000);
  const env = useTestEnv({ redis: false });
  // The api's clock: the test moves it past a kept size instead of waiting.
  const api = useTestApi(env, () => ({ now: () => new Date(Date.now() + clockOffset), rateLimiter: new BucketRateLimiter(new MemoryBucketStore(), 'compose:') }));
  let shop: TestApp;
  let clockOffset = 0;

  before(async () => {
    shop = await createTestApp(env.pool, 'shop');
    await addDevices(env.pool, shop.app.id, 1000, { prefix: 'e1', tags: { plan: 'gold' } });
  });

  /** A signed-in session of a new send key (each test its own key, so its own buckets). */
  async function session() {
    const key = (await createKey(env.pool, shop.app.id, { name: 'compose', scope: 'send' })).key;
    const signIn = await fetch(`${api.url}/dashboard/sign-in`, {
      method: 'POST', redirect: 'manual', body: new URLSearchParams({ key }), headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0];
    const form = await (await fetch(`${api.url}/dashboard/compose`, { headers: { cookie } })).text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form)![1];
    const get = (path: string) => fetch(api.url + path, { headers: { cookie } });
    const post = async (fields: Record<string, string>) => {
      const res = await fetch(`${api.url}/dashboard/compose`, {
        method: 'POST', redirect: 'manual', body: new URLSearchParams({ _csrf: csrf, ...fields }), headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      });
      return { status: res.status, location: res.headers.get('location'), text: await res.text() };
    };
    return { get, post };
  }
  const dashboardSends = async () => (await env.pool.query(`SELECT id FROM sends WHERE app_id = $1 AND source = 'dashboard' ORDER BY id`, [shop.app.id])).rows.map((r) => Number(r.id));
  /** The hidden inputs of a review page: the form its Send button posts. */
  const reviewForm = (text: string): Record<string, string> => Object.fromEntries([...text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1], m[2]]));
  const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString().slice(0, 16);
  const message = { lang_0: 'en', content_0: 'Back in stock', target: 'segment', segment: 'Subscribed Users' };

  it('refuses text PostgreSQL cannot store at Review, Send and estimate.json with the REST sentence, shown under its field', async () => {
    const { get, post } = await session();
    const before = await dashboardSends();
    for (const step of ['review', 'send']) {
      const res = await post({ ...message, content_0: 'Back\u0000in stock', step });
      expect(res.status, step).to.equal(422);
      expect(res.text, step).to.contain(`<ul class="field-errors" id="contents-errors" role="alert"><li>contents.en ${NUL_SENTENCE}</li></ul>`);
    }
    const tagged = await post({ ...message, target: 'tag', tag_key: 'plan', tag_relation: '=', tag_value: 'go\u0000ld', step: 'review' });
    expect(tagged.status).to.equal(422);
    expect(tagged.text).to.contain(`id="audience-errors"`).and.contain(`tag.value ${NUL_SENTENCE}`);
    const estimate = await get(`/dashboard/compose/estimate.json?${new URLSearchParams({ target: 'subscription_ids', ids: 'a\u0000b' })}`);
    expect(estimate.status).to.equal(422);
    expect((await estimate.json()).errors).to.deep.equal([`include_subscription_ids[0] ${NUL_SENTENCE}`]);
    expect(await dashboardSends()).to.deep.equal(before);
  });

  it('draws the send buckets on Send before counting: a burst of Sends past them is refused with 429 and records nothing', async () => {
    const { post } = await session();
    const statuses: number[] = [];
    // A segment send draws the key's broadcast bucket (bursts of 10; its audience bucket is fresh
    // too, no other test sends to this segment): 20 tries outrun the refill (one every 2 s) by far.
    const before = await dashboardSends();
    for (let i = 0; i < 20; i++) statuses.push((await post({ ...message, segment: 'Active Users', send_after: tomorrow(), step: 'send' })).status);
    expect(statuses.slice(0, 10)).to.deep.equal(Array(10).fill(302)); // sent: Review is the one confirmation
    expect(statuses.slice(-1)).to.deep.equal([429]);
    expect((await dashboardSends()).filter((id) => !before.includes(id)).length).to.equal(statuses.filter((s) => s === 302).length);
  });

  it('records one send for two posts of the same review form (a double click on Send)', async () => {
    const { post } = await session();
    const reviewed = await post({ ...message, target: 'tag', tag_key: 'plan', tag_relation: '=', tag_value: 'gold', send_after: tomorrow(), step: 'review' });
    expect(reviewed.status).to.equal(200);
    const form: Record<string, string> = { ...reviewForm(reviewed.text), step: 'send' };
    expect(form.send_key).to.match(/^[0-9a-f-]{36}$/);
    const before = await dashboardSends();
    const [first, second] = await Promise.all([post(form), post(form)]);
    expect([first.status, second.status]).to.deep.equal([302, 302]);
    expect(second.location).to.equal(first.location);
    const made = (await dashboardSends()).filter((id) => !before.includes(id));
    expect(made).to.have.length(1);
    expect(first.location).to.equal(`/dashboard/sends/${made[0]}`);
    // Posted again later (the page resubmitted), it is still the same send.
    expect((await post(form)).location).to.equal(first.location);
    // Review again: a new key, so a new send.
    const again = await post({ ...message, target: 'tag', tag_key: 'plan', tag_relation: '=', tag_value: 'gold', send_after: tomorrow(), step: 'review' });
    expect(reviewForm(again.text).send_key).to.not.equal(form.send_key);
  });

  it('counts an audience at most once per 30 s for Review and estimate.json; Send records a fresh count', async () => {
    const { get, post } = await session();
    const estimate = async () => (await (await get('/dashboard/compose/estimate.json?target=tag&tag_key=city&tag_relation=exists')).json()).estimate as number;
    const reviewed = async () => {
      const res = await post({ ...message, target: 'tag', tag_key: 'city', tag_relation: 'exists', send_after: tomorrow(), step: 'review' });
      return { size: /<dd id="estimate">([\d,]+) device/.exec(res.text)![1], form: reviewForm(res.text) };
    };
    await addDevices(env.pool, shop.app.id, 3, { prefix: 'f1', tags: { city: 'Lyon' } });
    expect(await estimate()).to.equal(3);
    await addDevices(env.pool, shop.app.id, 2, { prefix: 'f2', tags: { city: 'Nice' } });
    expect(await estimate(), 'kept').to.equal(3);
    const { size, form } = await reviewed();
    expect(size, 'kept, shared with estimate.json').to.equal('3');
    const sent = await post({ ...form, step: 'send' });
    const id = Number(sent.location!.split('/').pop());
    expect((await env.pool.query('SELECT total_recipients FROM sends WHERE id = $1', [id])).rows[0].total_recipients, 'the send counts afresh').to.equal(5);
    clockOffset += SIZE_KEPT_MS;
    expect(await estimate(), 'counted again 30 s later').to.equal(5);
  });

  it("estimate.json reads the platform choice (isIos / isAndroid narrow the count), each platform's size kept apart", async () => {
    const { get } = await session();
    await addDevices(env.pool, shop.app.id, 4, { prefix: 'p1', tags: { team: 'blue' } });
    await env.pool.query(`UPDATE subscriptions SET platform = 'android' WHERE app_id = $1 AND token = ANY(SELECT token FROM subscriptions WHERE app_id = $1 AND tags->>'team' = 'blue' ORDER BY seq LIMIT 1)`, [shop.app.id]);
    const estimate = async (platforms: string) =>
      (await (await get(`/dashboard/compose/estimate.json?${new URLSearchParams({ target: 'tag', tag_key: 'team', tag_relation: 'exists', platforms })}`)).json()).estimate as number;
    expect([await estimate(''), await estimate('android'), await estimate('ios'), await estimate('')]).to.deep.equal([4, 1, 3, 4]);
  });
});
