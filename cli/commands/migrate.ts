// `herald migrate`: applies database migrations (a Helm hook, or once by hand).
import { createPool } from '../../core/store/db.js';
import { openDatabase } from '../startup.js';
import { migrate } from '../../core/store/migrate.js';
import { loadConfig } from '../../core/config.js';

export async function runMigrate(): Promise<void> {
  const config = loadConfig(process.env);
  // PostgreSQL itself: the migrations' advisory lock is a session's, which a pooler in transaction
  // mode would leave on whichever server connection ran it (docs/install.md "PgBouncer").
  const url = config.databaseSessionUrl ?? config.databaseUrl;
  await ensureDatabase(url);
  // No statement timeout: a migration may rewrite a large table.
  const pool = await openDatabase(url, { max: 1, applicationName: 'herald-migrate', schema: false, statementTimeoutMs: 0 });
  try {
    const applied = await migrate(pool);
    process.stdout.write(applied.length ? `applied ${applied.join(', ')}\n` : 'schema is up to date\n');
  } finally {
    await pool.end();
  }
}

/** Creates the database named in the URL when the server does not have it yet (a first install). */
async function ensureDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  if (!name || !/^[A-Za-z0-9_]+$/.test(name)) return;
  url.pathname = '/postgres';
  const admin = createPool(url.toString(), { max: 1 });
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!exists.rowCount) await admin.query(`CREATE DATABASE ${name}`);
  } catch {
    // No rights on the maintenance database: the migration below reports the real problem.
  } finally {
    await admin.end();
  }
}
