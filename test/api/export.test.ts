// exportSubscriptions (issue 27, point 5) through the official client @onesignal/node-onesignal,
// against the real api and PostgreSQL: the link it answers is fetched, gunzipped and parsed, and
// the rows compared with the installs; a link serves once and only within its time, only its own
// app's installs, never an install erased before the download; the body's fields and their edges.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import * as OneSignal from '@onesignal/node-onesignal';
import { useTestEnv } from '../env/index.js';
import { startTestApi, useTestApi } from '../support/api-server.js';
import { MemoryBucketStore } from '../../core/buckets/memory-store.js';
import { BucketRateLimiter } from '../../api/rate-limit/bucket-limiter.js';
import { BUCKETS } from '../../core/buckets/policy.js';
import { officialClient, refused } from '../support/onesignal.js';
import { addDevices, makeApp, type TestApp } from '../support/apps.js';
import { createKey } from '../../core/apps/keys.js';
import { headerOf } from '../../core/exports/csv-columns.js';
import { EXPORT_LIMITS } from '../../core/exports/export-schema.js';
import { LINK_TTL_MS } from '../../core/exports/export-links.js';
import { CONCURRENT_EXPORTS } from '../../api/routes/exports.js';
import { waitFor } from '../support/wait.js';
import { parseCsv } from '../support/csv.js';
import { inTransaction } from '../../core/store/db.js';

describe('api: exportSubscriptions through the official client', () => {
  const env = useTestEnv();
  let now = new Date();
  const api = useTestApi(env, () => ({ now: () => now }));
  let a: TestApp;
  let b: TestApp;
  let client: OneSignal.DefaultApi;
  const body = (fields: Partial<OneSignal.ExportSubscriptionsRequestBody>) => Object.assign(new OneSignal.ExportSubscriptionsRequestBody(), fields);

  /** The link's file as records by column, and the answer's headers. */
  async function download(url: string): Promise<{ header: string[]; rows: Record<string, string>[]; headers: Headers }> {
    const res = await fetch(url);
    expect(res.status, await res.clone().text().catch(() => '')).to.equal(200);
    const csv = parseCsv(gunzipSync(Buffer.from(await res.arrayBuffer())).toString('utf8'));
    const [header, ...rows] = csv;
    return { header, rows: rows.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]]))), headers: res.headers };
  }

  before(async () => {
    a = await makeApp(env.pool, { segments: [{ name: 'Gold', conditions: [{ key: 'plan', relation: '=', value: 'gold' }] }] });
    b = await makeApp(env.pool);
    client = officialClient(api.url, a.key);
    const spec = Array.from({ length: 300 }, (_, i) => ({
      external_id: i % 3 === 0 ? `user-${i}` : undefined,
      language: i % 2 ? 'fr' : 'en',
      timezone: 'Europe/Paris',
      // Commas, quotes and a newline: the CSV must quote them.
      tags: (i % 10 === 0 ? { plan: 'gold', note: 'a, "b"\nc' } : { plan: 'free' }) as Record<string, string>,
      subscribed: i % 7 !== 0,
      last_active: new Date(Date.UTC(2026, 0, 1 + (i % 30))),
    }));
    await addDevices(env.pool, a.app.id, spec);
    await addDevices(env.pool, b.app.id, [{ external_id: 'other-app' }, {}]);
  });

  it('answers a link to a gzip CSV of every install of the app, with OneSignal\'s columns Herald keeps', async () => {
    const answer = await client.exportSubscriptions(a.app.id, body({}));
    expect(answer.csv_file_url).to.match(new RegExp(`^${api.url}/api/v1/exports/[A-Za-z0-9_-]{43}\\.csv\\.gz$`));
    const file = await download(answer.csv_file_url!);
    expect(file.headers.get('content-type')).to.equal('application/gzip');
    expect(file.headers.get('content-disposition')).to.match(/^attachment; filename="subscriptions_[0-9a-f-]{36}_\d{4}-\d\d-\d\d\.csv\.gz"$/);
    expect(file.header).to.deep.equal(headerOf([]));
    expect(file.header).to.deep.equal(['id', 'identifier', 'language', 'timezone', 'device_type', 'tags', 'last_active', 'created_at', 'invalid_identifier', 'platform']);
    const installs = await env.pool.query(
      `SELECT id::text, token, language, timezone, tags, subscribed, to_char(last_active AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS last_active
         FROM subscriptions WHERE app_id = $1 ORDER BY seq`, [a.app.id]);
    expect(file.rows).to.have.length(300);
    file.rows.forEach((row, i) => {
      const s = installs.rows[i];
      expect(row.id).to.equal(s.id);
      expect(row.identifier).to.equal(s.token);
      expect(row.language).to.equal(s.language);
      expect(row.timezone).to.equal('Europe/Paris');
      expect(row.device_type).to.equal('0');
      expect(JSON.parse(row.tags)).to.deep.equal(s.tags);
      expect(row.last_active).to.equal(s.last_active);
      expect(row.invalid_identifier).to.equal(s.subscribed ? 'f' : 't');
    });
    expect(file.rows.filter((r) => JSON.parse(r.tags).note === 'a, "b"\nc')).to.have.length(30);
  });

  it('serves a link once: the second fetch is a 404; a HEAD before does not use it up', async () => {
    const { csv_file_url: url } = await client.exportSubscriptions(a.app.id, body({}));
    const head = await fetch(url!, { method: 'HEAD' });
    expect(head.status).to.equal(200);
    expect(head.headers.get('content-type')).to.equal('application/gzip');
    await download(url!);
    expect((await fetch(url!, { method: 'HEAD' })).status).to.equal(404);
    const again = await fetch(url!);
    expect(again.status).to.equal(404);
    expect((await again.json()).errors[0]).to.equal('No such export: a link serves one download.');
  });

  it('an expired link is a 410, one still within its time serves; an unknown or malformed link is a 404', async () => {
    const made = new Date();
    now = made;
    const { csv_file_url: late } = await client.exportSubscriptions(a.app.id, body({}));
    const { csv_file_url: inTime } = await client.exportSubscriptions(a.app.id, body({}));
    try {
      now = new Date(made.getTime() + LINK_TTL_MS);
      expect((await fetch(late!, { method: 'HEAD' })).status).to.equal(410);
      expect((await fetch(late!)).status).to.equal(410);
      now = new Date(made.getTime() + LINK_TTL_MS - 1);
      await download(inTime!);
    } finally {
      now = new Date();
    }
    expect((await fetch(`${api.url}/api/v1/exports/${'A'.repeat(43)}.csv.gz`)).status).to.equal(404);
    expect((await fetch(`${api.url}/api/v1/exports/${'A'.repeat(42)}.csv.gz`)).status).to.equal(404);
    expect((await fetch(`${api.url}/api/v1/exports/${late!.split('/').pop()!.replace('.csv.gz', '')}`)).status).to.equal(404);
  });

  it('keeps the link only as its SHA-256', async () => {
    const { csv_file_url: url } = await client.exportSubscriptions(a.app.id, body({}));
    const token = url!.split('/').pop()!.replace('.csv.gz', '');
    const rows = await env.pool.query('SELECT token_sha256 FROM export_links WHERE app_id = $1', [a.app.id]);
    const digest = createHash('sha256').update(token).digest();
    expect(rows.rows.some((r) => digest.equals(r.token_sha256))).to.equal(true);
    const text = JSON.stringify((await env.pool.query('SELECT * FROM export_links')).rows);
    expect(text).not.to.include(token);
    await download(url!);
  });

  it('a link holds only its own app\'s installs; another app\'s id is a 403, a read key a 403', async () => {
    const file = await download((await officialClient(api.url, b.key).exportSubscriptions(b.app.id, body({}))).csv_file_url!);
    expect(file.rows).to.have.length(2);
    const ofA = await env.pool.query('SELECT id::text FROM subscriptions WHERE app_id = $1', [a.app.id]);
    const ids = new Set(ofA.rows.map((r) => r.id));
    expect(file.rows.filter((r) => ids.has(r.id))).to.deep.equal([]);
    expect((await refused(officialClient(api.url, b.key).exportSubscriptions(a.app.id, body({})))).code).to.equal(403);
    const read = await createKey(env.pool, a.app.id, { scope: 'read' });
    expect((await refused(officialClient(api.url, read.key).exportSubscriptions(a.app.id, body({})))).code).to.equal(403);
  });

  it('extra_fields adds external_user_id, notification_types and timezone_id; data Herald does not keep is a 422 naming it', async () => {
    const file = await download((await client.exportSubscriptions(a.app.id, body({ extra_fields: ['timezone_id', 'external_user_id', 'notification_types'] }))).csv_file_url!);
    expect(file.header).to.deep.equal([...headerOf([]), 'external_user_id', 'notification_types', 'timezone_id']);
    const known = file.rows.filter((r) => r.external_user_id !== '');
    expect(known).to.have.length(100);
    expect(file.rows.filter((r) => r.notification_types === '-2').map((r) => r.invalid_identifier)).to.have.length(43).and.to.satisfy((v: string[]) => v.every((x) => x === 't'));
    for (const field of ['ip', 'country', 'location']) {
      const no = await refused(client.exportSubscriptions(a.app.id, body({ extra_fields: [field] })));
      expect(no.code).to.equal(422);
      expect(no.body.errors[0]).to.include(`extra_fields[0] is ${field}: Herald keeps no such data`);
    }
    expect((await refused(client.exportSubscriptions(a.app.id, body({ extra_fields: ['external_user_id', 'external_user_id'] })))).code).to.equal(422);
  });

  it('segment_name exports the subscribed installs of the segment; an unknown segment is a 422 naming it', async () => {
    const gold = await download((await client.exportSubscriptions(a.app.id, body({ segment_name: 'Gold' }))).csv_file_url!);
    // 30 gold installs (every tenth), of which i % 7 === 0 (0, 70, 140, 210, 280) are unsubscribed.
    expect(gold.rows).to.have.length(25);
    expect(gold.rows.every((r) => JSON.parse(r.tags).plan === 'gold' && r.invalid_identifier === 'f')).to.equal(true);
    const subscribed = await download((await client.exportSubscriptions(a.app.id, body({ segment_name: 'Subscribed Users' }))).csv_file_url!);
    expect(subscribed.rows).to.have.length(300 - 43);
    // A segment made through the API exports as one of the App resource's: language fr, or gold.
    const made = await client.createSegment(a.app.id, Object.assign(new OneSignal.Segment(), { name: 'French or gold', filters: [
      { field: 'language', relation: '=', value: 'fr' }, { operator: 'OR' }, { field: 'tag', key: 'plan', relation: '=', value: 'gold' },
    ] as OneSignal.FilterExpression[] }));
    const fromApi = await download((await client.exportSubscriptions(a.app.id, body({ segment_name: 'French or gold' }))).csv_file_url!);
    // Odd i (150) or every tenth (30, all even), less the unsubscribed (i % 7 === 0: 21 odd, 5 tenths).
    expect(fromApi.rows).to.have.length(150 + 30 - 21 - 5);
    expect(fromApi.rows.every((r) => (r.language === 'fr' || JSON.parse(r.tags).plan === 'gold') && r.invalid_identifier === 'f')).to.equal(true);
    // Deleted between the link and the download: a 410 naming it, not every install.
    const late = (await client.exportSubscriptions(a.app.id, body({ segment_name: 'French or gold' }))).csv_file_url!;
    await client.deleteSegment(a.app.id, made.id!);
    const gone = await fetch(late);
    expect(gone.status).to.equal(410);
    expect((await gone.json()).errors[0]).to.equal('The segment French or gold was deleted since this export was asked for.');
    const no = await refused(client.exportSubscriptions(a.app.id, body({ segment_name: 'Platinum' })));
    expect(no.code).to.equal(422);
    expect(no.body.errors[0]).to.equal('segment_name: the app has no segment Platinum.');
    expect((await refused(client.exportSubscriptions(a.app.id, body({ segment_name: 'x'.repeat(EXPORT_LIMITS.segment_name + 1) })))).code).to.equal(422);
    expect((await refused(client.exportSubscriptions(a.app.id, body({ segment_name: '' })))).code).to.equal(422);
  });

  it('last_active_since keeps installs active after that second; a value that is not Unix seconds is a 422', async () => {
    const since = String(Date.UTC(2026, 0, 20) / 1000);
    const file = await download((await client.exportSubscriptions(a.app.id, body({ last_active_since: since }))).csv_file_url!);
    // Days 21 to 30 of 30 (strictly after the 20th's midnight): 10 of every 30 installs.
    expect(file.rows).to.have.length(100);
    expect(file.rows.every((r) => r.last_active > '2026-01-20 00:00:00')).to.equal(true);
    for (const bad of ['yesterday', '-1', '1'.repeat(EXPORT_LIMITS.last_active_since_digits + 1)]) {
      const no = await refused(client.exportSubscriptions(a.app.id, body({ last_active_since: bad })));
      expect(no.code, bad).to.equal(422);
      expect(no.body.errors[0]).to.match(/^last_active_since must be a time in Unix seconds/);
    }
    await download((await client.exportSubscriptions(a.app.id, body({ last_active_since: '9'.repeat(EXPORT_LIMITS.last_active_since_digits) }))).csv_file_url!);
  });

  it('an erased user is in no export, whether the link was made before or after the erasure', async () => {
    const made = await client.createUser(a.app.id, Object.assign(new OneSignal.User(), {
      identity: { external_id: 'to-erase' },
      subscriptions: [{ type: 'iOSPush', token: 'ab'.repeat(32) }, { type: 'iOSPush', token: 'cd'.repeat(32) }],
    }));
    const ids = made.subscriptions!.map((s) => s.id!);
    const before = (await client.exportSubscriptions(a.app.id, body({ extra_fields: ['external_user_id'] }))).csv_file_url!;
    await client.deleteUser(a.app.id, 'external_id', 'to-erase');
    const after = (await client.exportSubscriptions(a.app.id, body({ extra_fields: ['external_user_id'] }))).csv_file_url!;
    for (const url of [before, after]) {
      const file = await download(url);
      expect(file.rows).to.have.length(300);
      expect(file.rows.filter((r) => ids.includes(r.id) || r.external_user_id === 'to-erase' || r.identifier === 'ab'.repeat(32))).to.deep.equal([]);
    }
  });

  it('a body the client sends without fields, and no body at all, export everything', async () => {
    const res = await api.request('POST', `/api/v1/players/csv_export?app_id=${a.app.id}`, { key: a.key, headers: { 'content-type': 'application/json' } });
    expect(res.status).to.equal(200);
    expect((await download(res.body.csv_file_url)).rows).to.have.length(300);
    const extra = await api.request('POST', `/api/v1/players/csv_export?app_id=${a.app.id}`, { key: a.key, body: { segment_name: 'Gold', include_unsubscribed: true } });
    expect(extra.status).to.equal(422);
    expect(extra.body.errors[0]).to.equal('include_unsubscribed is not a field of exportSubscriptions.');
  });

  it('draws the export bucket, named in RateLimit-Policy: its burst passes, one more is a 429 naming it; a wrong link draws anonymous', async () => {
    const clock = { now: Date.now() };
    const limited = await startTestApi(env, { rateLimiter: new BucketRateLimiter(new MemoryBucketStore({ clock: () => clock.now }), 'export-test:') });
    try {
      const ask = () => limited.request('POST', `/api/v1/players/csv_export?app_id=${a.app.id}`, { key: a.key, body: {} });
      for (let i = 0; i < BUCKETS.export.burst; i++) {
        const res = await ask();
        expect(res.status, `call ${i + 1}`).to.equal(200);
        expect(res.headers.get('ratelimit-policy')).to.contain(`${BUCKETS.export.rate};w=${BUCKETS.export.windowSeconds};burst=${BUCKETS.export.burst};name="export"`);
      }
      const over = await ask();
      expect(over.status).to.equal(429);
      expect(over.body.errors[0]).to.match(/^Too many requests: the export bucket allows 60 per 3600 seconds \(bursts of 10\)\./);
      const wrong = await fetch(`${limited.url}/api/v1/exports/${'B'.repeat(43)}.csv.gz`);
      expect(wrong.status).to.equal(404);
      expect(wrong.headers.get('ratelimit-policy')).to.contain('name="anonymous"');
    } finally {
      await limited.close();
    }
  });

  it(`streams ${CONCURRENT_EXPORTS} downloads at once (a 503 leaves the link for later); a reader that goes away ends its COPY and frees its connection`, async function () {
    this.timeout(120_000);
    const big = await makeApp(env.pool);
    // Random tokens: a file far larger than what the sockets and the client buffer, so a download
    // nobody reads stays open (backpressure) until it is aborted.
    // The fixture's 300,000-row insert is not what is tested: it runs without the pool's 30 s
    // statement cap, which a loaded machine (the integration suite two files at a time) can reach.
    await inTransaction(env.pool, async (db) => {
      await db.query('SET LOCAL statement_timeout = 0');
      await db.query(
        `INSERT INTO subscriptions (id, app_id, token, tags) SELECT gen_random_uuid(), $1, md5(random()::text) || md5(random()::text), '{"k":"v"}'
           FROM generate_series(1, 300000)`, [big.app.id]);
    });
    const bigClient = officialClient(api.url, big.key);
    const links: string[] = [];
    for (let i = 0; i <= CONCURRENT_EXPORTS; i++) links.push((await bigClient.exportSubscriptions(big.app.id, body({}))).csv_file_url!);
    const copies = async () => Number((await env.pool.query(
      `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'COPY (SELECT%' AND state = 'active'`)).rows[0].n);
    const aborts = links.slice(0, CONCURRENT_EXPORTS).map(() => new AbortController());
    const held = await Promise.all(aborts.map((abort, i) => fetch(links[i], { signal: abort.signal })));
    for (const res of held) {
      expect(res.status).to.equal(200);
      await res.body!.getReader().read(); // the file has begun; nobody reads on
    }
    expect(await copies()).to.equal(CONCURRENT_EXPORTS);
    const busy = await fetch(links[CONCURRENT_EXPORTS]);
    expect(busy.status).to.equal(503);
    expect(busy.headers.get('retry-after')).to.equal('30');
    aborts.forEach((abort) => abort.abort());
    await waitFor('the aborted downloads\' COPY statements to end', async () => (await copies()) === 0, 30_000);
    // The link refused while busy still serves, whole.
    const file = await download(links[CONCURRENT_EXPORTS]);
    expect(file.rows).to.have.length(300000);
  });
});
