// GET /api/v1/notifications (OneSignal's list call): one app's sends newest first, paged, with the
// stats fields and what each send was; filters by kind/source, status, date and text; bounded
// parameters; and the official @onesignal/node-onesignal client reading it with only its base
// server changed.
import { expect } from 'chai';
import * as OneSignal from '@onesignal/node-onesignal';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { addDevices, makeApp, type TestApp } from '../support/apps.js';
import { createKey } from '../../core/apps/keys.js';

describe('api: list of sends', () => {
  const env = useTestEnv();
  const api = useTestApi(env);
  let app: TestApp;
  let other: TestApp;
  let readKey: string;
  const ids: number[] = [];

  before(async () => {
    app = await makeApp(env.pool);
    other = await makeApp(env.pool);
    readKey = (await createKey(env.pool, app.app.id, { name: 'reader', scope: 'read' })).key;
    await addDevices(env.pool, app.app.id, Array.from({ length: 3 }, () => ({})));
    const bodies = [
      { contents: { en: 'First sale' }, included_segments: ['All'] },
      { contents: { en: 'Order 42 shipped', fr: 'Commande 42 partie' }, headings: { en: 'Shop' }, tag: { key: 'nothing', relation: 'exists' } },
      { contents: { en: '100% off_today' }, included_segments: ['All'], send_after: new Date(Date.now() + 3600_000).toISOString(), throttle_rate_per_minute: 600 },
    ];
    for (const body of bodies) {
      const res = await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, ...body } });
      expect(res.status).to.be.oneOf([200, 202]);
      ids.push(res.body.id);
    }
    await env.pool.query(`UPDATE sends SET source = 'kubernetes' WHERE id = $1`, [ids[0]]);
    await api.request('POST', '/api/v1/notifications', { key: other.key, body: { app_id: other.app.id, contents: { en: 'other app' }, included_segments: ['All'] } });
  });

  const list = (query = '', key = app.key) => api.request('GET', `/api/v1/notifications?app_id=${app.app.id}${query}`, { key });

  it("lists the key's app's sends newest first with the page's numbers and each send's fields", async () => {
    const res = await list();
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ total_count: 3, offset: 0, limit: 50 });
    expect(res.body.notifications.map((n: { id: number }) => n.id)).to.deep.equal([...ids].reverse());
    const [scheduled, listed] = res.body.notifications;
    expect(scheduled).to.include({ status: 'scheduled', source: 'api', throttle_rate_per_minute: 600, canceled: false, completed_at: null });
    expect(scheduled.send_after - scheduled.queued_at).to.be.within(3500, 3700);
    expect(listed).to.include({ status: 'approved', total_recipients: 0, remaining: 0 });
    expect(listed.contents).to.deep.equal({ en: 'Order 42 shipped', fr: 'Commande 42 partie' });
    expect(listed.headings).to.deep.equal({ en: 'Shop' });
    expect(listed.completed_at).to.be.a('number');
  });

  it('pages with limit and offset', async () => {
    const res = await list('&limit=1&offset=1');
    expect(res.body).to.include({ total_count: 3, offset: 1, limit: 1 });
    expect(res.body.notifications.map((n: { id: number }) => n.id)).to.deep.equal([ids[1]]);
  });

  it('filters by kind or source, status, date and text (wildcards taken literally)', async () => {
    const idsOf = async (q: string) => (await list(q)).body.notifications.map((n: { id: number }) => n.id);
    expect(await idsOf('&kind=3')).to.deep.equal([ids[0]]);
    expect(await idsOf('&source=api')).to.deep.equal([ids[2], ids[1]]);
    expect(await idsOf('&kind=0')).to.deep.equal([]);
    expect(await idsOf('&status=scheduled')).to.deep.equal([ids[2]]);
    expect(await idsOf('&q=commande')).to.deep.equal([ids[1]]);
    expect(await idsOf('&q=shop')).to.deep.equal([ids[1]]);
    expect(await idsOf('&q=100%25')).to.deep.equal([ids[2]]);
    expect(await idsOf('&q=_')).to.deep.equal([ids[2]]);
    expect(await idsOf(`&q=${ids[0]}`)).to.include(ids[0]); // the id, or a text containing it
    // The stored JSON's keys and punctuation are not text a person wrote.
    expect(await idsOf('&q=%22')).to.deep.equal([]);
    expect(await idsOf('&q=en')).to.deep.equal([]);
    expect(await idsOf('&q=contents')).to.deep.equal([]);
    expect(await idsOf('&q=%7B')).to.deep.equal([]);
    const today = new Date().toISOString().slice(0, 10);
    expect(await idsOf(`&from=${today}&to=${today}`)).to.have.length(3);
    expect(await idsOf('&to=2000-01-01')).to.deep.equal([]);
  });

  it('searches through the trigram index on the texts, not a scan of the stored JSON', async () => {
    const client = await env.pool.connect();
    try {
      await client.query('SET enable_seqscan = off'); // a three-row table would be scanned anyway
      const plan = (await client.query(`EXPLAIN SELECT id FROM sends WHERE search_text ILIKE '%commande%'`)).rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(plan).to.include('sends_search');
    } finally {
      await client.query('RESET enable_seqscan');
      client.release();
    }
  });

  it('counts at most 10,000 matches of a search (a word in every send), exactly below that', async () => {
    const bulk = await makeApp(env.pool);
    await env.pool.query(
      `INSERT INTO sends (app_id, target_kind, status, request)
       SELECT $1, 'segment', 'approved', jsonb_build_object('contents', jsonb_build_object('en', 'bulk news ' || i)) FROM generate_series(1, 10005) AS i`,
      [bulk.app.id],
    );
    const page = async (q: string) => (await api.request('GET', `/api/v1/notifications?app_id=${bulk.app.id}&q=${q}`, { key: bulk.key })).body;
    const all = await page('bulk');
    expect(all.total_count).to.equal(10_000);
    expect(all.notifications).to.have.length(50);
    expect((await page('news%2010004')).total_count).to.equal(1);
    expect((await api.request('GET', `/api/v1/notifications?app_id=${bulk.app.id}`, { key: bulk.key })).body.total_count, 'without q the count is exact').to.equal(10_005);
  });

  it('answers 400 naming the parameter for a bad or unbounded one', async () => {
    for (const [q, word] of [['&limit=51', 'limit'], ['&offset=-1', 'offset'], ['&kind=2', 'kind'], ['&status=sent', 'status'],
      ['&from=yesterday', 'from'], [`&q=${'x'.repeat(201)}`, 'q'], ['&limit=1&limit=2', 'limit'], ['&kind=1&source=kubernetes', 'kind']]) {
      const res = await list(q);
      expect(res.status, q).to.equal(400);
      expect(res.body.errors[0], q).to.contain(word);
    }
  });

  it("never shows another app's sends, and a read key may list but not send or cancel", async () => {
    expect((await api.request('GET', `/api/v1/notifications?app_id=${app.app.id}`, { key: other.key })).status).to.equal(404);
    expect((await list('', readKey)).body.total_count).to.equal(3);
    expect((await api.request('GET', `/api/v1/notifications/${ids[1]}`, { key: readKey })).status).to.equal(200);
    const send = await api.request('POST', '/api/v1/notifications', { key: readKey, body: { app_id: app.app.id, contents: { en: 'x' }, included_segments: ['All'] } });
    expect(send.status).to.equal(403);
    expect(send.body.errors[0]).to.contain('scope read');
    const cancel = await api.request('DELETE', `/api/v1/notifications/${ids[2]}?app_id=${app.app.id}`, { key: readKey });
    expect(cancel.status).to.equal(403);
  });

  it('works with the official OneSignal client with only its base server changed', async () => {
    const client = new OneSignal.DefaultApi(OneSignal.createConfiguration({
      restApiKey: readKey,
      baseServer: new OneSignal.ServerConfiguration(`${api.url}/api/v1`, {}),
    }));
    const page = await client.getNotifications(app.app.id, 2, 0, 1);
    expect(page.total_count).to.equal(2);
    expect(page.notifications?.map((n) => Number(n.id))).to.deep.equal([ids[2], ids[1]]);
    const one = await client.getNotification(app.app.id, String(ids[1]));
    expect(one.contents).to.deep.equal({ en: 'Order 42 shipped', fr: 'Commande 42 partie' });
    expect(one.canceled).to.equal(false);
    expect(one.completed_at).to.be.a('number');
  });
});
