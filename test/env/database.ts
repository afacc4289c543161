// One database per test file, cloned from a template that holds the migrated schema. The template
// is named after a hash of the migrations, so a changed migration builds a new one.
import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createPool, type Pool } from '../../core/store/db.js';
import { migrate, migrationFiles } from '../../core/store/migrate.js';

const ADMIN_URL = process.env.HERALD_TEST_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const MIGRATIONS = join(dirname(fileURLToPath(import.meta.url)), '../../core/store/migrations');

export function databaseUrl(name: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function adminQuery(sql: string, params: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await client.query(sql, params);
  } finally {
    await client.end();
  }
}

async function templateName(): Promise<string> {
  const hash = createHash('sha256');
  for (const file of await migrationFiles()) hash.update(file).update(await readFile(join(MIGRATIONS, file)));
  return `herald_tpl_${hash.digest('hex').slice(0, 12)}`;
}

async function ensureTemplate(): Promise<string> {
  const name = await templateName();
  const exists = await adminQuery('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  if (exists.rowCount) return name;
  // Two test processes may race: build under a scratch name, then rename atomically.
  const scratch = `${name}_${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${scratch}`);
  const pool = createPool(databaseUrl(scratch), { max: 1 });
  try {
    await migrate(pool);
  } finally {
    await pool.end();
  }
  try {
    await adminQuery(`ALTER DATABASE ${scratch} RENAME TO ${name}`);
  } catch {
    await adminQuery(`DROP DATABASE IF EXISTS ${scratch}`); // another process won the race
  }
  return name;
}

export interface TestDatabase {
  name: string;
  url: string;
  pool: Pool;
  drop(): Promise<void>;
}

/** A database of its own, migrated (cloned from the template) unless `migrated: false` (empty). */
export async function createTestDatabase(opts: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const name = `herald_t_${randomBytes(6).toString('hex')}`;
  await adminQuery(opts.migrated === false ? `CREATE DATABASE ${name}` : `CREATE DATABASE ${name} TEMPLATE ${await ensureTemplate()}`);
  const url = databaseUrl(name);
  const pool = createPool(url, { max: 10 });
  return {
    name,
    url,
    pool,
    async drop() {
      // Idle clients of this pool get "terminating connection" when the database is dropped
      // with FORCE; that is expected here, not a test failure.
      pool.on('error', () => undefined);
      await pool.end();
      await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}
