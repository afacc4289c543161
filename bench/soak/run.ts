// An hour without drift: mixed traffic against real `herald api`, `herald sender` and
// `herald apns-sim` processes for --minutes (30 by default): list sends, segment sends, stats, list
// calls, SDK registrations and opens, and one scheduled send a minute. Every minute it prints, per
// process, RSS, heap used and event-loop delay p99 (their /metrics), the p99 of each route as the
// client saw it, the outbox and chunk backlogs and the sizes of the growing tables. At the end it
// compares the last third of the minutes with the first third after warm-up (±20 %).
//
//   npx tsx bench/soak/run.ts [--minutes 30] [--rate 20] [--installs 10000]
import { randomBytes } from 'node:crypto';
import { cpus, loadavg, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { setCredentials, upsertApp } from '../../core/apps/app-store.js';
import { createKey } from '../../core/apps/keys.js';
import { generateApnsKeyPair } from '../../apns-sim/index.js';
import { benchDatabase } from '../support/bench-database.js';
import { spawnHerald } from '../support/herald-process.js';

const { values } = parseArgs({ options: { minutes: { type: 'string', default: '30' }, rate: { type: 'string', default: '20' }, installs: { type: 'string', default: '10000' } } });
const MINUTES = Number(values.minutes);
const RATE = Number(values.rate); // list sends a second; the other routes scale from it

const { pool, url } = await benchDatabase('herald_bench_soak', { fresh: true });
const app = await upsertApp(pool, { name: 'soak', bundleId: 'com.example.soak' });
const apnsKey = generateApnsKeyPair();
await setCredentials(pool, app.id, { kind: 'token', keyId: apnsKey.keyId, teamId: 'SOAKTEAM01', material: Buffer.from(apnsKey.privateKeyP8) });
const { key } = await createKey(pool, app.id, { name: 'soak' });
await pool.query(
  `INSERT INTO subscriptions (id, app_id, token, language, external_id, last_active)
   SELECT gen_random_uuid(), $1, lpad(to_hex(i), 64, '0'), 'en', 'user-' || i, now() FROM generate_series(1, $2::int) AS i`,
  [app.id, Number(values.installs)],
);
const subscriptionIds = (await pool.query('SELECT id FROM subscriptions WHERE app_id = $1 LIMIT 1000', [app.id])).rows.map((r) => r.id as string);

const env = { HERALD_DATABASE_URL: url, HERALD_RATE_LIMITS: 'off', HERALD_STREAM_PREFIX: `S${randomBytes(3).toString('hex')}`, HERALD_REDIS_PREFIX: 'soak:' };
const sim = await spawnHerald(['apns-sim', '--port', '0', '--control-port', '0', '--max-deliveries', '1000'], {}, /^\{"url"/);
const simInfo = JSON.parse(sim.line) as { url: string; caFile: string };
const api = await spawnHerald(['api'], { ...env, HERALD_HTTP_PORT: '0' }, /^listening \d+/);
const base = `http://127.0.0.1:${/listening (\d+)/.exec(api.line)![1]}`;
const sender = await spawnHerald(['sender'], { ...env, HERALD_APNS_URL: simInfo.url, HERALD_APNS_CA_FILE: simInfo.caFile, HERALD_METRICS_PORT: '0' }, /^metrics \d+/);
const senderMetrics = `http://127.0.0.1:${/metrics (\d+)/.exec(sender.line)![1]}/metrics`;

const latencies = new Map<string, number[]>();
const errors = new Map<string, number>();
async function call(route: string, path: string, init: RequestInit = {}, auth = true): Promise<unknown> {
  const started = performance.now();
  try {
    const res = await fetch(`${base}${path}`, { ...init, headers: { 'Content-Type': 'application/json', ...(auth ? { Authorization: `Key ${key}` } : {}), ...init.headers } });
    const body = res.headers.get('content-type')?.includes('json') ? await res.json() : await res.text();
    if (res.status >= 400) errors.set(`${route} ${res.status}`, (errors.get(`${route} ${res.status}`) ?? 0) + 1);
    return body;
  } catch {
    errors.set(`${route} network`, (errors.get(`${route} network`) ?? 0) + 1);
    return undefined;
  } finally {
    const list = latencies.get(route) ?? [];
    list.push(performance.now() - started);
    latencies.set(route, list);
  }
}

const sendIds: number[] = [];
const post = (body: Record<string, unknown>) => call(body.send_after ? 'scheduled send' : body.included_segments ? 'segment send' : 'list send', '/api/v1/notifications', { method: 'POST', body: JSON.stringify({ app_id: app.id, ...body }) });
let tick = 0;
const traffic = setInterval(() => {
  tick++;
  for (let i = 0; i < RATE / 10; i++) {
    const to = subscriptionIds[(tick * 7 + i) % subscriptionIds.length];
    void post({ contents: { en: `Order ${tick}-${i} shipped` }, include_subscription_ids: [to] }).then((b) => {
      const id = (b as { id?: number } | undefined)?.id;
      if (id) sendIds.push(id);
      if (sendIds.length > 5000) sendIds.splice(0, 1000);
      if (id && i === 0) void call('open', `/api/v1/notifications/${id}/opened`, { method: 'POST', body: JSON.stringify({ app_id: app.id, subscription_id: to }) }, false);
    });
    const read = sendIds[Math.floor(Math.random() * sendIds.length)];
    if (read) void call('stats', `/api/v1/notifications/${read}`);
  }
  if (tick % 5 === 0) void call('list call', `/api/v1/notifications?app_id=${app.id}&limit=50`);
  if (tick % 2 === 0) void call('sdk register', `/api/v1/apps/${app.id}/subscriptions`, { method: 'POST', body: JSON.stringify({ token: randomBytes(32).toString('hex'), language: 'en', tags: { soak: '1' } }) }, false);
  if (tick % 300 === 0) void post({ contents: { en: `Flash sale ${tick}` }, included_segments: ['Subscribed Users'] }); // every 30 s
  if (tick % 600 === 0) void post({ contents: { en: `Scheduled ${tick}` }, included_segments: ['Subscribed Users'], send_after: new Date(Date.now() + 30_000).toISOString() });
}, 100);

// One scrape per process a minute: prom-client resets its event-loop histogram at each scrape.
const metric = (text: string, name: string): number => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, 'm').exec(text)?.[1] ?? NaN);
const p99 = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))] : NaN);
const TABLES = ['sends', 'send_chunks', 'subscriptions', 'opens', 'idempotency_keys', 'outbox'];
interface Minute { minute: number; [k: string]: number }
const minutes: Minute[] = [];
console.log(`bench/soak — ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GB, load average ${loadavg()[0].toFixed(1)} at start; ${RATE} list sends/s, ${values.installs} installs, ${MINUTES} min`);
for (let m = 1; m <= MINUTES; m++) {
  await new Promise((r) => setTimeout(r, 60_000));
  const row: Minute = { minute: m };
  for (const [name, target] of [['api', `${base}/metrics`], ['sender', senderMetrics]] as const) {
    const text = await (await fetch(target)).text();
    row[`${name} rss MB`] = metric(text, 'process_resident_memory_bytes') / 2 ** 20;
    row[`${name} heap MB`] = metric(text, 'nodejs_heap_size_used_bytes') / 2 ** 20;
    row[`${name} loop p99 ms`] = metric(text, 'nodejs_eventloop_lag_p99_seconds') * 1000;
  }
  for (const [route, xs] of latencies) row[`${route} p99 ms`] = p99(xs);
  latencies.clear();
  row.outbox = Number((await pool.query('SELECT count(*) FROM outbox')).rows[0].count);
  row['chunks waiting'] = Number((await pool.query(`SELECT count(*) FROM send_chunks WHERE state IN ('planned', 'working')`)).rows[0].count);
  for (const t of TABLES) row[`${t} MB`] = Number((await pool.query('SELECT pg_total_relation_size($1::regclass) AS b', [t])).rows[0].b) / 2 ** 20;
  minutes.push(row);
  console.log(JSON.stringify(Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Math.round(v * 10) / 10]))));
}
clearInterval(traffic);

// Trend: the last third of the minutes against the first third after a minute of warm-up.
const warm = minutes.slice(1);
const third = Math.max(1, Math.floor(warm.length / 3));
const mean = (rows: Minute[], k: string) => rows.reduce((s, r) => s + (r[k] ?? 0), 0) / rows.length;
console.log(`\n| measure | first third | last third | change |\n| --- | ---: | ---: | ---: |`);
for (const k of Object.keys(minutes[0]).filter((k) => /rss|heap|p99/.test(k))) {
  const [a, b] = [mean(warm.slice(0, third), k), mean(warm.slice(-third), k)];
  console.log(`| ${k} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(((b - a) / a) * 100).toFixed(0)} % |`);
}
console.log(`\nerrors: ${JSON.stringify(Object.fromEntries(errors))}; load average ${loadavg()[0].toFixed(1)} at the end`);
for (const p of [sender.child, api.child, sim.child]) p.kill('SIGTERM');
await pool.end();
process.exit(0);
