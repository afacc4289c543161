// bench/users: the user calls of issue 27 against 2 `herald api` processes with rate limits on,
// load from a separate process (bench/api/load.ts, autocannon).
//
//   npx tsx bench/users/run.ts [--duration 10] [--connections 32] [--users 1000] [--keys 50] [--apis 2] [--erase 200]
//
// (a) updateUser of tags: PATCH /apps/{app}/users/by/external_id/{id}, users in turn, each of 2
//     installs (every call writes the user and its installs' copies). Many keys: the users bucket
//     is per key (1,000 a second), and the figure is the cost of drawing, not of refusals.
// (b) a tag set on a user of 20 installs, then at once a filters send's estimate on that tag:
//     how many of the rounds counted all 20 (the next request sees the change).
// (c) deleteUser of a user with 20 installs and 50 Live Activity tokens, one call at a time
//     (each user erased once): p50 and p99 as the client saw them.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { createTestDatabase } from '../../test/env/database.js';
import { ensureServices } from '../../test/env/services.js';
import { setCredentials, upsertApp } from '../../core/apps/app-store.js';
import { createKey } from '../../core/apps/keys.js';
import { spawnHerald } from '../support/herald-process.js';
import { connectBus, deleteStreams } from '../../core/bus/jetstream.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    users: { type: 'string', default: '1000' }, // their paths go on load.ts's command line (≤ 128 KB)
    keys: { type: 'string', default: '50' },
    apis: { type: 'string', default: '2' },
    erase: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '200' },
  },
});
const NATS_URL = process.env.HERALD_TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
const REDIS_URL = process.env.HERALD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const USERS = Number(values.users);
const ERASE = Number(values.erase);

await ensureServices();
const db = await createTestDatabase();
const id = randomBytes(4).toString('hex');
const redisPrefix = `benchusers${id}:`;
const streamPrefix = `BU${id}`;
const bus = await connectBus(NATS_URL, streamPrefix, { name: `bench-users-${id}` });
const app = await upsertApp(db.pool, { name: `bench-users-${id}`, bundleId: 'dev.herald.bench', segments: [] });
await setCredentials(db.pool, app.id, { kind: 'token', keyId: 'BENCHKEY01', teamId: 'BENCHTEAM1', material: Buffer.from('bench') });
const keys: string[] = [];
for (let i = 0; i < Number(values.keys); i++) keys.push((await createKey(db.pool, app.id, { name: `bench-${i}` })).key);

/** `count` users named `${prefix}${i}`, each with `installs` installs and `tokens` Live Activity tokens, in a few statements. */
async function makeUsers(prefix: string, count: number, installs: number, tokens: number): Promise<void> {
  await db.pool.query(
    `WITH u AS (INSERT INTO users (id, app_id) SELECT gen_random_uuid(), $1 FROM generate_series(1, $2) RETURNING id),
          n AS (SELECT id, row_number() OVER () AS i FROM u),
          a AS (INSERT INTO user_aliases (app_id, label, alias_id, user_id) SELECT $1, 'external_id', $3 || n.i, n.id FROM n)
     INSERT INTO subscriptions (id, app_id, token, user_id, external_id, language, last_active)
     SELECT gen_random_uuid(), $1, md5(n.id::text || k) || md5(k || n.id::text), n.id, $3 || n.i, 'en', now() FROM n, generate_series(1, $4) k`,
    [app.id, count, prefix, installs],
  );
  if (tokens) {
    // The user's tokens spread over its installs: token k on install ((k - 1) mod 20) + 1.
    await db.pool.query(
      `INSERT INTO live_activity_tokens (app_id, kind, activity, subscription_id, token)
       SELECT $1, 'update', 'match-' || g.k, s.id, md5(s.id::text || g.k)
         FROM (SELECT id, row_number() OVER (PARTITION BY user_id ORDER BY seq) AS rn FROM subscriptions WHERE app_id = $1 AND external_id LIKE $2 || '%') s
         JOIN generate_series(1, $3) g(k) ON ((g.k - 1) % $4) + 1 = s.rn`,
      [app.id, prefix, tokens, installs],
    );
  }
}

await makeUsers('tags-', USERS, 2, 0);
await makeUsers('wide-', 1, 20, 0);
await makeUsers('erase-', ERASE, 20, 50);
const tokenCount = (await db.pool.query(`SELECT count(*)::int AS n FROM live_activity_tokens t JOIN subscriptions s ON s.id = t.subscription_id WHERE s.external_id = 'erase-1'`)).rows[0].n;

const env = {
  HERALD_DATABASE_URL: db.url,
  HERALD_NATS_URL: NATS_URL,
  HERALD_REDIS_URL: REDIS_URL,
  HERALD_STREAM_PREFIX: streamPrefix,
  HERALD_REDIS_PREFIX: redisPrefix,
  HERALD_HTTP_HOST: '127.0.0.1',
  HERALD_HTTP_PORT: '0',
  HERALD_TRUST_PROXY_HOPS: '1',
  HERALD_RATE_LIMITS: 'on',
};
const apis = await Promise.all(Array.from({ length: Number(values.apis) }, () => spawnHerald(['api'], env, /listening (\d+)/)));
const urls = apis.map(({ line }) => `http://127.0.0.1:${/listening (\d+)/.exec(line)![1]}`);
const ips = Array.from({ length: 500 }, (_, i) => `10.9.${(i >> 8) & 255}.${i & 255}`);

function load(method: 'PATCH', paths: string[], body: unknown, duration: number): Promise<Record<string, unknown>> {
  const job = { urls, method, paths, body: JSON.stringify(body), keys, ips, connections: Number(values.connections), duration };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/api/load.ts'), JSON.stringify(job)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += String(d)));
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`load exited ${code}`))));
  });
}

/** CPU seconds used so far by these processes (utime + stime from /proc). */
function cpuSeconds(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(f[11]) + Number(f[12]);
    } catch {
      // gone: counts nothing
    }
  }
  return ticks / 100;
}

/**
 * CPU milliseconds per request of the api processes and of the PostgreSQL backends serving this
 * benchmark's database only: the machine is shared, so throughput moves with others' load while
 * this cost does not (much).
 */
async function costPerRequest<T extends { total: number }>(run: () => Promise<T>): Promise<T & { cpu_ms_per_request: { api: number; postgres: number } }> {
  const backends = (await db.pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database()')).rows.map((r) => r.pid);
  const apiPids = apis.map(({ child }) => child.pid!);
  const before = [cpuSeconds(apiPids), cpuSeconds(backends)];
  const out = await run();
  const after = [cpuSeconds(apiPids), cpuSeconds(backends)];
  const per = (i: number) => Math.round(((after[i] - before[i]) * 1000 * 100) / out.total) / 100;
  return { ...out, cpu_ms_per_request: { api: per(0), postgres: per(1) } };
}

let k = 0;
async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any; ms: number }> {
  const started = performance.now();
  const res = await fetch(`${urls[k % urls.length]}${path}`, {
    method,
    headers: { authorization: `Key ${keys[k++ % keys.length]}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, ms: performance.now() - started };
}
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

try {
  const base = `/api/v1/apps/${app.id}/users/by/external_id`;
  const paths = Array.from({ length: USERS }, (_, i) => `${base}/tags-${i + 1}`);
  const body = { properties: { tags: { plan: 'gold', seen: '1' } } };
  await load('PATCH', paths, body, 3); // warm-up: JIT, pools, key cache
  const a = await costPerRequest(async () => (await load('PATCH', paths, body, Number(values.duration))) as { total: number });

  let seen = 0;
  const rounds = Number(values.rounds);
  for (let r = 0; r < rounds; r++) {
    const set = await call('PATCH', `${base}/wide-1`, { properties: { tags: { round: `r${r}` } } });
    if (set.status !== 202) throw new Error(`updateUser answered ${set.status}`);
    const send = await call('POST', '/api/v1/notifications', { app_id: app.id, contents: { en: 'x' }, filters: [{ field: 'tag', key: 'round', relation: '=', value: `r${r}` }] });
    if (send.body?.estimate === 20) seen++;
  }

  const erased: number[] = [];
  for (let i = 1; i <= ERASE; i++) {
    const res = await call('DELETE', `${base}/erase-${i}`);
    if (res.status !== 200 || res.body.erased.installs !== 20) throw new Error(`deleteUser answered ${res.status} ${JSON.stringify(res.body)}`);
    erased.push(res.ms);
  }
  erased.sort((x, y) => x - y);
  const left = (await db.pool.query(`SELECT count(*)::int AS n FROM subscriptions WHERE app_id = $1 AND external_id LIKE 'erase-%'`, [app.id])).rows[0].n;

  console.log(`machine: ${cpus().length} × ${cpus()[0]?.model}, ${Math.round(totalmem() / 2 ** 30)} GB; ${urls.length} api processes, limits on; ${new Date().toISOString()}`);
  console.log(`(a) updateUser of tags (${USERS} users of 2 installs, ${keys.length} keys, ${values.connections} connections per api): ${JSON.stringify(a)}`);
  console.log(`(b) tag set on a user of 20 installs, then a filters send's estimate: ${seen} of ${rounds} rounds counted all 20 in the next request`);
  console.log(`(c) deleteUser of a user with 20 installs and ${tokenCount} Live Activity tokens, ${ERASE} users one at a time: p50 ${pct(erased, 50).toFixed(1)} ms, p99 ${pct(erased, 99).toFixed(1)} ms, max ${erased[erased.length - 1].toFixed(1)} ms; installs left: ${left}`);
} finally {
  for (const { child } of apis) child.kill('SIGTERM');
  await deleteStreams(bus.jsm, bus.names).catch(() => undefined);
  await bus.close();
  const redis = new Redis(REDIS_URL);
  const leftKeys = await redis.keys(`${redisPrefix}*`);
  if (leftKeys.length) await redis.del(...leftKeys);
  redis.disconnect();
  await db.drop();
}
