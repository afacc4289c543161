// bench/players: OneSignal's v1 registration, POST /players, as the iOS SDK before 5 makes it (the
// App ID alone, no key; issue 38), against 2 `herald api` processes with rate limits on, load from
// a separate process (bench/api/load.ts, autocannon) spread over 500 caller addresses (the sdk
// bucket is per IP). The app holds `--players` installs first (written in one statement, as
// `herald import` leaves them: token, language, no user row); requests mix known tokens (every
// `--known-every`-th) and tokens never seen.
//
//   npx tsx bench/players/run.ts [--duration 20] [--connections 32] [--players 200000] [--known-every 2] [--apis 2]
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
import { spawnHerald } from '../support/herald-process.js';
import { connectBus, deleteStreams } from '../../core/bus/jetstream.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '20' },
    connections: { type: 'string', default: '32' },
    players: { type: 'string', default: '200000' },
    'known-every': { type: 'string', default: '2' },
    apis: { type: 'string', default: '2' },
  },
});
const NATS_URL = process.env.HERALD_TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
const REDIS_URL = process.env.HERALD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const PLAYERS = Number(values.players);

await ensureServices();
const db = await createTestDatabase();
const id = randomBytes(4).toString('hex');
const redisPrefix = `benchplayers${id}:`;
const streamPrefix = `BP${id}`;
const bus = await connectBus(NATS_URL, streamPrefix, { name: `bench-players-${id}` });
const app = await upsertApp(db.pool, { name: `bench-players-${id}`, bundleId: 'dev.herald.bench', segments: [] });
await setCredentials(db.pool, app.id, { kind: 'token', keyId: 'BENCHKEY01', teamId: 'BENCHTEAM1', material: Buffer.from('bench') });
const importStarted = performance.now();
// playerToken(i) of player-token.ts, in SQL: 'b0' and i in 62 hex digits.
await db.pool.query(
  `INSERT INTO subscriptions (id, app_id, token, language, last_active)
   SELECT gen_random_uuid(), $1, 'b0' || lpad(to_hex(i), 62, '0'), 'en', now() FROM generate_series(0, $2 - 1) i`,
  [app.id, PLAYERS],
);
await db.pool.query('ANALYZE subscriptions');
const importSeconds = (performance.now() - importStarted) / 1000;

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
const ips = Array.from({ length: 500 }, (_, i) => `10.8.${(i >> 8) & 255}.${i & 255}`);

function load(duration: number, v5 = false): Promise<Record<string, unknown>> {
  const job = {
    urls, method: 'POST', paths: [v5 ? `/api/v1/apps/${app.id}/subscriptions` : '/api/v1/players'], keys: [], ips, connections: Number(values.connections), duration,
    players: { appId: app.id, known: PLAYERS, knownEvery: Number(values['known-every']), v5 },
  };
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

/** The run, and the CPU milliseconds per request of the api processes and of this database's backends (the machine is shared: this moves less than the rate). */
async function measured(v5: boolean): Promise<Record<string, unknown>> {
  const backends = (await db.pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database()')).rows.map((r) => r.pid);
  const apiPids = apis.map(({ child }) => child.pid!);
  const before = [cpuSeconds(apiPids), cpuSeconds(backends)];
  const out = await load(Number(values.duration), v5);
  const after = [cpuSeconds(apiPids), cpuSeconds(backends)];
  const per = (i: number) => Math.round(((after[i] - before[i]) * 1000 * 100) / Number(out.total)) / 100;
  return { ...out, cpu_ms_per_request: { api: per(0), postgres: per(1) } };
}

try {
  await load(3); // warm-up: JIT, pools
  const v1 = await measured(false);
  const v5 = await measured(true);
  console.log(`machine: ${cpus().length} × ${cpus()[0]?.model}, ${Math.round(totalmem() / 2 ** 30)} GB, load average ${(await import('node:os')).loadavg()[0].toFixed(1)}; ${urls.length} api processes, limits on; ${new Date().toISOString()}`);
  console.log(`${PLAYERS} players written in ${importSeconds.toFixed(1)} s; every ${values['known-every']}th request a known token, ${values.connections} connections per api, ${values.duration} s each`);
  console.log(`POST /players (v1, App ID alone): ${JSON.stringify(v1)}`);
  console.log(`POST /apps/{app_id}/subscriptions (v5 app-facing, same tokens): ${JSON.stringify(v5)}`);
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
