// A benchmark's own database on the machine's PostgreSQL (HERALD_BENCH_ADMIN_URL), migrated:
// `fresh` drops what an earlier run left; otherwise an earlier run's data is reused (the
// million-row benches skip their inserts when the rows are there).
import pg from 'pg';
import { createPool, type Pool } from '../../core/store/db.js';
import { migrate } from '../../core/store/migrate.js';

export async function benchDatabase(name: string, opts: { fresh: boolean }): Promise<{ pool: Pool; url: string }> {
  const adminUrl = process.env.HERALD_BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const url = adminUrl.replace(/\/[^/]*$/, `/${name}`);
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    if (opts.fresh) await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    if (!(await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount) await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const pool = createPool(url, { max: 2, statementTimeoutMs: 0 });
  await migrate(pool);
  return { pool, url };
}
