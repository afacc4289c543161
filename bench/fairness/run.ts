// Fairness benchmark: a stream of 500-id list sends of several apps, first on an idle
// system, then while another app's broadcast to --devices devices (1,000,000: 2,000 chunks) is
// being delivered. Prints p50/p99/max of each list send's time from its answer (createSend
// returned, the accept path of the api) to its last device recorded (max(send_chunks.finished_at)).
// The broadcast is paused (invoice overdue) once the measurement ends, so a run takes minutes.
//
//   npx tsx bench/fairness/run.ts [--devices 1000000] [--senders 2] [--concurrency 4]
//        [--rate 3] [--seconds 30] [--apps 5]
//
// Needs PostgreSQL, Redis and NATS on their usual ports (as the tests do); the senders and the
// APNs simulator run as processes of their own (bin/herald). Never part of `make test`.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createPool, type Pool } from '../../core/store/db.js';
import { statusInSql } from '../../core/send-model/states.js';
import { migrate } from '../../core/store/migrate.js';
import { upsertApp, setCredentials, getApp, setInvoiceOverdue, type AppRecord } from '../../core/apps/app-store.js';
import { connectBus, deleteStreams, type Bus } from '../../core/bus/jetstream.js';
import { createSend } from '../../core/send/create-send.js';
import { validateSendRequest } from '../../core/validation/validate-send.js';
import { silentLogger } from '../../core/log.js';
import { generateApnsKeyPair, randomAppleId } from '../../apns-sim/index.js';
import { spawnHerald } from '../support/herald-process.js';

const { values } = parseArgs({
  options: {
    devices: { type: 'string', default: '1000000' },
    senders: { type: 'string', default: '2' },
    concurrency: { type: 'string', default: '4' },
    rate: { type: 'string', default: '3' }, // list sends a second
    seconds: { type: 'string', default: '30' }, // per phase
    apps: { type: 'string', default: '5' },
  },
});
const DEVICES = Number(values.devices);
const ADMIN = process.env.HERALD_BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB = `herald_bench_fairness_${DEVICES}`;
const dbUrl = ADMIN.replace(/\/[^/]*$/, `/${DB}`);
const PREFIX = `FAIR${Date.now().toString(36)}`;

async function app(pool: Pool, name: string, key: ReturnType<typeof generateApnsKeyPair>, teamId: string): Promise<AppRecord> {
  const a = await upsertApp(pool, { name, bundleId: `com.example.${name}` });
  await setCredentials(pool, a.id, { kind: 'token', keyId: key.keyId, teamId, material: Buffer.from(key.privateKeyP8) });
  await setInvoiceOverdue(pool, a.id, false);
  return (await getApp(pool, a.id))!;
}

/** Inserts `count` devices (external ids `u<n>` when asked) unless the app already has them. */
async function devices(pool: Pool, appId: string, count: number, externalIds: boolean): Promise<void> {
  const have = Number((await pool.query('SELECT count(*) FROM subscriptions WHERE app_id = $1 AND subscribed', [appId])).rows[0].count);
  if (have === count) return;
  await pool.query('DELETE FROM subscriptions WHERE app_id = $1', [appId]);
  const t0 = Date.now();
  await pool.query(
    `INSERT INTO subscriptions (id, app_id, token, language, external_id, last_active)
     SELECT gen_random_uuid(), $1::uuid, md5($1::text || i) || md5(i || $1::text), 'en', CASE WHEN $3 THEN 'u' || i END, now()
       FROM generate_series(1, $2::int) AS i`,
    [appId, count, externalIds],
  );
  await pool.query('VACUUM ANALYZE subscriptions');
  if (count > 10_000) process.stderr.write(`inserted ${count} devices in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
}

function request(a: AppRecord, body: Record<string, unknown>) {
  return validateSendRequest({ body: { app_id: a.id, ...body }, app: { id: a.id, bundleId: a.bundleId, segmentNames: [] }, now: new Date() });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/** Sends `rate` list sends a second for `seconds`, round robin over the apps; returns answer → last device, ms. */
async function listSends(pool: Pool, bus: Bus, apps: AppRecord[], ids: string[], seconds = Number(values.seconds)): Promise<{ ms: number[]; unfinished: number }> {
  const deps = { pool, bus, logger: silentLogger() };
  const rate = Number(values.rate);
  const total = Math.round(rate * seconds);
  const answered = new Map<number, number>();
  const started = Date.now();
  for (let i = 0; i < total; i++) {
    const wait = started + (i * 1000) / rate - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const a = apps[i % apps.length];
    const created = await createSend(deps, a, request(a, { include_external_ids: ids, contents: { en: `code ${i}` } }));
    answered.set(created.body.id, Date.now());
  }
  // Every send's last device, waiting at most 120 s after the last answer.
  const ms: number[] = [];
  const until = Date.now() + 120_000;
  while (answered.size && Date.now() < until) {
    const res = await pool.query(
      `SELECT s.id, extract(epoch FROM max(k.finished_at)) * 1000 AS last FROM sends s JOIN send_chunks k ON k.send_id = s.id
        WHERE s.id = ANY($1) AND ${statusInSql('s.status', 'final')} GROUP BY s.id`,
      [[...answered.keys()]],
    );
    for (const r of res.rows) {
      ms.push(Number(r.last) - answered.get(Number(r.id))!);
      answered.delete(Number(r.id));
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { ms: ms.sort((x, y) => x - y), unfinished: answered.size };
}

function report(label: string, r: { ms: number[]; unfinished: number }): string {
  const f = (v: number | undefined) => (v === undefined ? '–' : `${(v / 1000).toFixed(2)} s`);
  return `${label}: ${r.ms.length} list sends of 500 devices, p50 ${f(percentile(r.ms, 50))}, p99 ${f(percentile(r.ms, 99))}, max ${f(r.ms[r.ms.length - 1])}${r.unfinished ? `, ${r.unfinished} not finished within 120 s of the last answer` : ''}`;
}

// Setup: one broadcast app, several list apps, a simulator and the senders.
const admin = new pg.Client({ connectionString: ADMIN });
await admin.connect();
if (!(await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DB])).rowCount) await admin.query(`CREATE DATABASE ${DB}`);
await admin.end();
const pool = createPool(dbUrl, { max: 4 });
await migrate(pool);
await pool.query('DELETE FROM sends');
const key = generateApnsKeyPair();
const teamId = randomAppleId();
const big = await app(pool, 'broadcaster', key, teamId);
await devices(pool, big.id, DEVICES, false);
const lists: AppRecord[] = [];
for (let i = 0; i < Number(values.apps); i++) {
  const a = await app(pool, `lists${i}`, key, teamId);
  await devices(pool, a.id, 500, true);
  lists.push(a);
}
const ids = Array.from({ length: 500 }, (_, i) => `u${i + 1}`);
const certDir = await mkdtemp(join(tmpdir(), 'herald-bench-fair-'));
const sim = await spawnHerald(['apns-sim', '--port', '0', '--control-port', '0', '--cert-dir', certDir, '--max-deliveries', '0', '--track-tokens', 'false'], {}, /^\{"url"/, { echoWarnings: true });
const simInfo = JSON.parse(sim.line) as { url: string; caFile: string };
const env = {
  HERALD_DATABASE_URL: dbUrl,
  HERALD_STREAM_PREFIX: PREFIX,
  HERALD_REDIS_PREFIX: `${PREFIX.toLowerCase()}:`,
  HERALD_HTTP_HOST: '127.0.0.1',
  HERALD_METRICS_PORT: '0',
  HERALD_APNS_URL: simInfo.url,
  HERALD_APNS_CA_FILE: simInfo.caFile,
  HERALD_SENDER_CONCURRENCY: values.concurrency!,
};
await Promise.all(Array.from({ length: Number(values.senders) }, () => spawnHerald(['sender'], env, /^metrics \d+/, { echoWarnings: true })));
const bus = await connectBus(process.env.HERALD_NATS_URL ?? 'nats://127.0.0.1:4222', PREFIX);
await listSends(pool, bus, lists, ids, 10); // warm-up, 10 s: each app's APNs connections and JWT, prepared statements, the JIT

const idle = await listSends(pool, bus, lists, ids);
console.log(report('idle', idle));

const deps = { pool, bus, logger: silentLogger() };
const broadcast = await createSend(deps, big, request(big, { included_segments: ['Subscribed Users'], contents: { en: 'Sale' } }));
const bStart = Date.now();
for (;;) {
  const r = await pool.query('SELECT chunks_done FROM sends WHERE id = $1', [broadcast.body.id]);
  if (r.rows[0].chunks_done >= 4) break;
  await new Promise((res) => setTimeout(res, 100));
}
const busy = await listSends(pool, bus, lists, ids);
const progress = (await pool.query('SELECT sent, chunks_done, chunks_total, status FROM sends WHERE id = $1', [broadcast.body.id])).rows[0];
console.log(report(`during a ${DEVICES.toLocaleString('en-US')}-device broadcast`, busy));
console.log(`broadcast: ${progress.sent} devices sent in ${((Date.now() - bStart) / 1000).toFixed(0)} s (${progress.chunks_done}/${progress.chunks_total} chunks, ${progress.status}); paused now`);

await setInvoiceOverdue(pool, big.id, true);
for (let i = 0; i < 600; i++) {
  const r = await pool.query('SELECT status FROM sends WHERE id = $1', [broadcast.body.id]);
  if (r.rows[0].status === 'approved' || r.rows[0].status === 'draft') break;
  await new Promise((res) => setTimeout(res, 100));
}
await setInvoiceOverdue(pool, big.id, false);
await deleteStreams(bus.jsm, bus.names);
await bus.close();
await pool.query('DELETE FROM sends');
await pool.end();
process.exit(0);
