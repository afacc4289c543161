// The dashboard's overview on an app of 10,000,000 installs and 10,000 sends (issue 40 point 1:
// "answers in ≤ 200 ms"): the installs (1 % unsubscribed by the app, 0.5 % by Apple) and 30 days
// of sends with their counters (one in ten failing some devices, its chunk rows naming Apple's
// reasons) are written straight into a database of their own; the scheduler's overview duties run
// once (timed: the failure reasons of every finished send, the device count of the big app); then
// a real `herald api` process answers GET /dashboard/?range=… for a signed-in session, one request
// after another, and the times are printed per range (p50, p95, p99, max), as the client sees them.
//
//   npx tsx bench/overview/run.ts [--installs 10000000] [--sends 10000] [--requests 200]
import { cpus, loadavg, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { upsertApp } from '../../core/apps/app-store.js';
import { createKey } from '../../core/apps/keys.js';
import { runOverviewDuties } from '../../core/overview/duties.js';
import { RANGE_NAMES } from '../../core/dashboard-reads/overview-range.js';
import { readOverview } from '../../core/dashboard-reads/overview.js';
import { benchDatabase } from '../support/bench-database.js';
import { spawnHerald } from '../support/herald-process.js';

const { values } = parseArgs({ options: { installs: { type: 'string', default: '10000000' }, sends: { type: 'string', default: '10000' }, requests: { type: 'string', default: '200' } } });
const INSTALLS = Number(values.installs);
const SENDS = Number(values.sends);
const REQUESTS = Number(values.requests);

// The data is kept between runs (the inserts take minutes): a rerun with the same sizes reuses it.
const { pool, url } = await benchDatabase('herald_bench_overview', { fresh: false });
const app = await upsertApp(pool, { name: 'bench-overview', bundleId: 'com.example.overview' });
const have = Number((await pool.query('SELECT count(*) AS n FROM subscriptions WHERE app_id = $1', [app.id])).rows[0].n);
const t0 = performance.now();
for (let from = have; from < INSTALLS; from += 1_000_000) {
  const to = Math.min(INSTALLS, from + 1_000_000);
  await pool.query(
    `INSERT INTO subscriptions (id, app_id, token, language, tags, subscribed, unsubscribed_reason, last_active, created_at)
     SELECT gen_random_uuid(), $1, lpad(to_hex(i), 64, '0'), (ARRAY['en','fr','de','pt-BR'])[1 + i % 4], jsonb_build_object('level', (i % 100)::text),
            i % 200 >= 3, CASE WHEN i % 200 IN (0, 1) THEN 'app' WHEN i % 200 = 2 THEN 'Unregistered' END,
            now() - ((i % 720) || ' hours')::interval, now() - ((i % 2000) || ' hours')::interval
       FROM generate_series($2::int + 1, $3::int) AS i`,
    [app.id, from, to],
  );
  process.stderr.write(`installs: ${to.toLocaleString('en-US')}\n`);
}
const haveSends = Number((await pool.query('SELECT count(*) AS n FROM sends WHERE app_id = $1', [app.id])).rows[0].n);
if (haveSends < SENDS) {
  // 10,000 sends spread over 30 days, each with its counters; one in ten failed some devices, and
  // its two chunk rows name Apple's reasons.
  await pool.query(
    `WITH s AS (
       INSERT INTO sends (app_id, target_kind, request, status, total_recipients, sent, failed, clicked, created_at, send_after, finished_at)
       SELECT $1, 'subscription_ids', '{"contents": {"en": "bench"}}', 'approved', 1000, 990 - (i % 10) * 5, CASE WHEN i % 10 = 0 THEN 10 ELSE 0 END, i % 97,
              t, t, t + interval '2 minutes'
         FROM generate_series($2::int + 1, $3::int) AS i, LATERAL (SELECT now() - (i * (30 * 86400.0 / $3) || ' seconds')::interval AS t) at
       RETURNING id, failed
     )
     INSERT INTO send_chunks (send_id, chunk, planned, state, failed, failed_reasons, finished_at)
     SELECT s.id, c, 500, 'done', 5, ARRAY['BadDeviceToken', 'BadDeviceToken', 'Unregistered', 'DeviceTokenNotForTopic', 'BadDeviceToken'], now()
       FROM s, generate_series(0, 1) AS c WHERE s.failed > 0`,
    [app.id, haveSends, SENDS],
  );
}
await pool.query('VACUUM ANALYZE subscriptions');
await pool.query('VACUUM ANALYZE sends');
await pool.query('VACUUM ANALYZE send_chunks');
const loadS = (performance.now() - t0) / 1000;

// The duties as the scheduler's leader runs them, from nothing counted.
await pool.query('DELETE FROM send_failure_reasons');
await pool.query('DELETE FROM overview_marks');
await pool.query('DELETE FROM app_device_counts');
const d0 = performance.now();
const duties = await runOverviewDuties(pool, { stop: () => false });
const dutiesS = (performance.now() - d0) / 1000;
const c0 = performance.now();
await pool.query(`UPDATE app_device_counts SET counted_at = counted_at - interval '1 hour'`);
await runOverviewDuties(pool, { stop: () => false });
const countS = (performance.now() - c0) / 1000;

const { key } = await createKey(pool, app.id, { name: 'bench', scope: 'read' });
const api = await spawnHerald(['api'], { HERALD_DATABASE_URL: url, HERALD_RATE_LIMITS: 'off', HERALD_HTTP_PORT: '0', HERALD_STREAM_PREFIX: 'BOVW', HERALD_REDIS_PREFIX: 'bovw:' }, /^listening \d+/);
const base = `http://127.0.0.1:${/listening (\d+)/.exec(api.line)![1]}`;
const signIn = await fetch(`${base}/dashboard/sign-in`, { method: 'POST', redirect: 'manual', body: new URLSearchParams({ key }), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
const cookie = signIn.headers.get('set-cookie')!.split(';')[0];

const percentiles = (times: number[]) => {
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(1);
  return `${at(0.5)} ms | ${at(0.95)} ms | ${at(0.99)} ms | ${times.at(-1)!.toFixed(1)} ms`;
};
// The page's reads alone (core/dashboard-reads/overview.ts, the three statements side by side),
// in this process: the database's share of an answer.
const reads: string[] = [];
for (const range of RANGE_NAMES) {
  const times: number[] = [];
  for (let i = 0; i < REQUESTS + 10; i++) {
    const started = performance.now();
    await readOverview(pool, app.id, range, new Date());
    if (i >= 10) times.push(performance.now() - started);
  }
  reads.push(`| ${range} (reads only) | ${REQUESTS} | ${percentiles(times)} |`);
}

const rows: string[] = [];
for (const range of RANGE_NAMES) {
  const get = async () => {
    const started = performance.now();
    const res = await fetch(`${base}/dashboard/?range=${range}`, { headers: { cookie } });
    const text = await res.text();
    if (res.status !== 200 || !text.includes('id="reasons-chart"')) throw new Error(`${range}: ${res.status}`);
    return performance.now() - started;
  };
  for (let i = 0; i < 10; i++) await get(); // warm: prepared plans, caches
  const times: number[] = [];
  for (let i = 0; i < REQUESTS; i++) times.push(await get());
  rows.push(`| ${range} (GET /dashboard/) | ${REQUESTS} | ${percentiles(times)} |`);
}
api.child.kill('SIGTERM');
await pool.end();

const n = (x: number) => x.toLocaleString('en-US');
console.log(`\nbench/overview — ${n(INSTALLS)} installs, ${n(SENDS)} sends over 30 days; ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GB, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} at the end`);
console.log(`data written in ${loadS.toFixed(0)} s (0 when reused); the duties from nothing: ${dutiesS.toFixed(1)} s (${n(duties.sends)} sends' reasons, ${n(duties.apps)} apps counted); a due recount of the app: ${countS.toFixed(1)} s\n`);
console.log('| range | requests | p50 | p95 | p99 | max |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
for (const r of [...reads, ...rows]) console.log(r);
process.exit(0);
