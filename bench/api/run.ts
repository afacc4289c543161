// bench/api: requests/s and p50/p99 of the HTTP front with rate limits off (the "before") and on
// (the "after"), 2 `herald api` processes, load from a separate process (bench/api/load.ts).
//
//   npx tsx bench/api/run.ts [--duration 10] [--connections 32] [--keys 400] [--ips 500] [--devices 3000]
//                            [--apis 2] [--limits both|on|off]
//
// With each scenario it prints where the CPU went while it ran (seconds of CPU, from /proc, of the
// api processes, PostgreSQL's backends, Redis, NATS and the load generator), so the ceiling is
// named: PostgreSQL or Node.
//
// Scenarios: (a) POST list send, 1 subscription id; (b) POST segment send ("Subscribed Users",
// limits off only: audience allows 10 a minute per app by contract, so it cannot be driven at
// load with limits on); (c) GET stats. Many keys and many caller addresses (X-Forwarded-For,
// trusted one hop) so no bucket refuses: the figures measure the cost of drawing, not refusals.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpus, totalmem } from 'node:os';
import { readFileSync, readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { createTestDatabase } from '../../test/env/database.js';
import { ensureServices } from '../../test/env/services.js';
import { connectBus, deleteStreams } from '../../core/bus/jetstream.js';
import { setCredentials, upsertApp } from '../../core/apps/app-store.js';
import { createKey } from '../../core/apps/keys.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    keys: { type: 'string', default: '400' },
    ips: { type: 'string', default: '500' },
    devices: { type: 'string', default: '3000' },
    cpuProf: { type: 'string' }, // directory: run the api processes under --cpu-prof
    apis: { type: 'string', default: '2' },
    limits: { type: 'string', default: 'both' },
  },
});
const DURATION = Number(values.duration);
const APIS = Number(values.apis);
const LIMITS = values.limits === 'both' ? (['off', 'on'] as const) : [values.limits as 'on' | 'off'];
const CONNECTIONS = Number(values.connections);
const NATS_URL = process.env.HERALD_TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
const REDIS_URL = process.env.HERALD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

await ensureServices();
const db = await createTestDatabase();
const id = randomBytes(4).toString('hex');
const streamPrefix = `B${id}`;
const redisPrefix = `bench${id}:`;
const bus = await connectBus(NATS_URL, streamPrefix, { name: `bench-${id}` });

// One app with many keys and a few thousand subscriptions.
const app = await upsertApp(db.pool, { name: `bench-${id}`, bundleId: 'dev.herald.bench', segments: [] });
await setCredentials(db.pool, app.id, { kind: 'token', keyId: 'BENCHKEY01', teamId: 'BENCHTEAM1', material: Buffer.from('bench') });
await db.pool.query(
  `INSERT INTO subscriptions (id, app_id, token, language, last_active)
   SELECT gen_random_uuid(), $1, md5(i::text) || md5((i + 1)::text), 'en', now() FROM generate_series(1, $2) i`,
  [app.id, Number(values.devices)],
);
const subscriptionId = (await db.pool.query('SELECT id FROM subscriptions WHERE app_id = $1 LIMIT 1', [app.id])).rows[0].id as string;
const keys: string[] = [];
for (let i = 0; i < Number(values.keys); i++) keys.push((await createKey(db.pool, app.id, { name: `bench-${i}` })).key);
const ips = Array.from({ length: Number(values.ips) }, (_, i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);

interface Api { url: string; child: ChildProcess }

async function startApi(limits: 'on' | 'off', n: number): Promise<Api> {
  // One profile per thread (tsx runs its loader in a worker), named by pid, in <dir>/limits-<on|off>.
  const args = values.cpuProf ? [`--cpu-prof`, `--cpu-prof-dir=${join(values.cpuProf, `limits-${limits}`)}`] : [];
  void n;
  const child = spawn(process.execPath, [...args, join(ROOT, 'bin/herald.js'), 'api'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/root',
      HERALD_DATABASE_URL: db.url,
      HERALD_NATS_URL: NATS_URL,
      HERALD_REDIS_URL: REDIS_URL,
      HERALD_STREAM_PREFIX: streamPrefix,
      HERALD_REDIS_PREFIX: redisPrefix,
      HERALD_LOG_LEVEL: 'warn',
      HERALD_HTTP_HOST: '127.0.0.1',
      HERALD_HTTP_PORT: '0',
      HERALD_PRINT_PORT: '1',
      HERALD_TRUST_PROXY_HOPS: '1',
      HERALD_RATE_LIMITS: limits,
      // The api runs compiled, as in the image (tsx's loader and source maps cost a few percent).
      HERALD_USE_DIST: '1',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += String(d);
      const m = /listening (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`herald api exited ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

function stop(api: Api): Promise<void> {
  return new Promise((resolve) => {
    if (api.child.exitCode !== null) return resolve();
    api.child.once('exit', () => resolve());
    api.child.kill('SIGTERM');
  });
}

interface Figures { rps: number; total: number; p50: number; p99: number; non2xx: number; errors: number; statuses: Record<string, number>; cpu?: Record<string, number> }

/** CPU seconds used so far by processes, grouped: by pid for ours, by name for the servers. */
function cpuSeconds(groups: Record<string, number[]>): Record<string, number> {
  const ticks = (pid: number | string) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return Number(f[11]) + Number(f[12]); // utime + stime
    } catch {
      return 0;
    }
  };
  const byName: Record<string, number> = { postgres: 0, 'redis-server': 0, 'nats-server': 0 };
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let comm = '';
    try {
      comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      continue;
    }
    if (comm in byName) byName[comm] += ticks(pid);
  }
  const out: Record<string, number> = {};
  for (const [name, pids] of Object.entries(groups)) out[name] = pids.reduce((sum, pid) => sum + ticks(pid), 0) / 100;
  for (const [name, t] of Object.entries(byName)) out[name] = t / 100;
  return out;
}

function load(urls: string[], method: 'GET' | 'POST', paths: string[], body: unknown, duration = DURATION): Promise<Figures> {
  const job = { urls, method, paths, body: body === undefined ? undefined : JSON.stringify(body), keys, ips, connections: CONNECTIONS, duration };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/api/load.ts'), JSON.stringify(job)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    const groups = () => ({ api: running.map((a) => a.child.pid!), load: [child.pid!] });
    const before = cpuSeconds(groups());
    let loadCpu = 0;
    let out = '';
    child.stdout.on('data', (d) => {
      out += String(d);
      loadCpu = cpuSeconds({ load: [child.pid!] }).load; // read before it exits
    });
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`load exited ${code}`));
      const after = cpuSeconds(groups());
      const cpu = Object.fromEntries(Object.keys(after).map((k) => [k, Math.round((after[k] - before[k]) * 10) / 10]));
      cpu.load = Math.round(loadCpu * 10) / 10;
      resolve({ ...JSON.parse(out.trim().split('\n').pop()!), cpu });
    });
  });
}

const listBody = { app_id: app.id, contents: { en: 'Your order has shipped.' }, include_subscription_ids: [subscriptionId] };
const segmentBody = { app_id: app.id, contents: { en: 'Flash sale today.' }, included_segments: ['Subscribed Users'] };
const rows: { limits: string; scenario: string; f: Figures }[] = [];
let running: Api[] = [];

try {
  for (const limits of LIMITS) {
    const apis = await Promise.all(Array.from({ length: APIS }, (_, i) => startApi(limits, i + 1)));
    running = apis;
    const urls = apis.map((a) => a.url);
    try {
      await load(urls, 'POST', ['/api/v1/notifications'], listBody, 3); // warm-up: JIT, pools, key cache
      rows.push({ limits, scenario: '(a) list send, 1 id', f: await load(urls, 'POST', ['/api/v1/notifications'], listBody) });
      if (limits === 'off') {
        rows.push({ limits, scenario: '(b) segment send', f: await load(urls, 'POST', ['/api/v1/notifications'], segmentBody) });
      }
      const ids = (await db.pool.query('SELECT id FROM sends WHERE app_id = $1 ORDER BY id DESC LIMIT 1000', [app.id])).rows.map((r) => r.id as number);
      const paths = ids.map((sendId) => `/api/v1/notifications/${sendId}`);
      await load(urls, 'GET', paths, undefined, 2);
      rows.push({ limits, scenario: '(c) GET stats', f: await load(urls, 'GET', paths, undefined) });
    } finally {
      await Promise.all(apis.map(stop));
    }
  }
} finally {
  await deleteStreams(bus.jsm, bus.names).catch(() => undefined);
  await bus.close();
  const redis = new Redis(REDIS_URL);
  const left = await redis.keys(`${redisPrefix}*`);
  if (left.length) await redis.del(...left);
  redis.disconnect();
  await db.drop();
}

const cpu = cpus()[0]?.model ?? 'unknown';
console.log(`\nbench/api — ${cpus().length} cores (${cpu}), ${Math.round(totalmem() / 2 ** 30)} GB, Node ${process.version}; ${APIS} api processes, ` +
  `${CONNECTIONS} connections each, ${DURATION} s per scenario, ${keys.length} keys, ${ips.length} caller IPs\n`);
console.log('| limits | scenario | requests/s | p50 ms | p99 ms | non-2xx | errors |');
console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: |');
for (const { limits, scenario, f } of rows) {
  console.log(`| ${limits} | ${scenario} | ${Math.round(f.rps)} | ${f.p50} | ${f.p99} | ${f.non2xx} | ${f.errors} |`);
}
for (const { limits, scenario, f } of rows) if (f.non2xx) console.log(`  ${limits} ${scenario}: statuses ${JSON.stringify(f.statuses)}`);
console.log('\nCPU seconds during each scenario (of about ' + DURATION * 2 + ' available on 2 cores):\n');
console.log('| limits | scenario | api | postgres | redis | nats | load |');
console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: |');
for (const { limits, scenario, f } of rows) {
  const c = f.cpu ?? {};
  console.log(`| ${limits} | ${scenario} | ${c.api} | ${c.postgres} | ${c['redis-server']} | ${c['nats-server']} | ${c.load} |`);
}
process.exit(0);
