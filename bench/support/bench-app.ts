// What the delivery and event benchmarks share: a database of their own holding one app with
// `devices` subscribed installs (kept between runs: a million take a while to insert) and an API
// key, and a process's CPU seconds read from /proc.
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { createPool, type Pool } from '../../core/store/db.js';
import { migrate } from '../../core/store/migrate.js';
import { upsertApp, setCredentials } from '../../core/apps/app-store.js';
import { createKey } from '../../core/apps/keys.js';
import { generateApnsKeyPair, randomAppleId } from '../../apns-sim/index.js';

export const BENCH_ADMIN_URL = process.env.HERALD_BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** The URL of database `name` on the benchmark's server. */
export const benchDatabaseUrl = (name: string) => BENCH_ADMIN_URL.replace(/\/[^/]*$/, `/${name}`);

/**
 * Creates (or reuses) database `name` with app `bench` and `devices` subscribed installs; calls
 * `prepare` with the app's id before the key is made (destinations and such). Returns the app's
 * id and a new REST API key.
 */
export async function prepareBenchApp(name: string, devices: number, prepare?: (pool: Pool, appId: string) => Promise<void>): Promise<{ appId: string; apiKey: string }> {
  const admin = new pg.Client({ connectionString: BENCH_ADMIN_URL });
  await admin.connect();
  const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  if (!exists.rowCount) await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  // Inserting a million installs on a loaded machine takes longer than the default statement timeout.
  const pool = createPool(benchDatabaseUrl(name), { max: 2, statementTimeoutMs: 0 });
  await migrate(pool);
  const key = generateApnsKeyPair();
  const app = await upsertApp(pool, { name: 'bench', bundleId: 'com.example.bench' });
  await setCredentials(pool, app.id, { kind: 'token', keyId: key.keyId, teamId: randomAppleId(), material: Buffer.from(key.privateKeyP8) });
  await prepare?.(pool, app.id);
  const have = Number((await pool.query('SELECT count(*) FROM subscriptions WHERE app_id = $1', [app.id])).rows[0].count);
  if (have !== devices) {
    await pool.query('DELETE FROM subscriptions WHERE app_id = $1', [app.id]);
    const t0 = Date.now();
    process.stderr.write(`inserting ${devices} devices… `);
    await pool.query(
      `INSERT INTO subscriptions (id, app_id, token, language, last_active)
       SELECT gen_random_uuid(), $1, lpad(to_hex(i), 64, '0'), (ARRAY['en','fr','de','pt-BR'])[1 + i % 4], now()
         FROM generate_series(1, $2::int) AS i`,
      [app.id, devices],
    );
    await pool.query('VACUUM ANALYZE subscriptions');
    process.stderr.write(`${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  }
  await pool.query('UPDATE subscriptions SET subscribed = true WHERE app_id = $1 AND NOT subscribed', [app.id]);
  const { key: apiKey } = await createKey(pool, app.id, { name: `bench-${Date.now()}` });
  await pool.end();
  return { appId: app.id, apiKey };
}

/** User + system CPU seconds of a process so far (NaN once it is gone). */
export function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/** Resident memory of a process in MiB (NaN once it is gone). */
export function rssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}
