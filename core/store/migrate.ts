// Applies the numbered SQL files of ./migrations in order, each once, under an advisory lock so
// that two `herald migrate` runs (two pods of a rollout) never race. An applied migration is
// recorded by file name, under every name it has had (./renamed-migrations.ts).
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import type { Pool, PoolClient } from './db.js';
import { namesOf, recordAllNames } from './renamed-migrations.js';

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');
const LOCK_ID = 7_341_110; // any constant shared by all Herald migrators

export async function migrationFiles(): Promise<string[]> {
  return checkNumbers((await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{3}_.+\.sql$/.test(f)).sort());
}

/** Throws when two files share a number: their order would then rest on the rest of their names,
 * and a rename to settle it reruns the migration wherever the old name is not in
 * ./renamed-migrations.ts. Gaps are allowed (docs/decisions.md, issue 26). */
export function checkNumbers(files: readonly string[]): string[] {
  const byNumber = new Map<string, string[]>();
  for (const file of files) byNumber.set(file.slice(0, 3), [...(byNumber.get(file.slice(0, 3)) ?? []), file]);
  const repeated = [...byNumber.values()].filter((names) => names.length > 1);
  if (repeated.length) {
    throw new Error(`migrations share a number: ${repeated.map((names) => names.join(', ')).join('; ')}`);
  }
  return [...files];
}

/** Returns the names of the migrations it applied (empty when the schema was current). */
export async function migrate(pool: Pool): Promise<string[]> {
  const client = await pool.connect();
  try {
    // A migration may rewrite a large table: no cap, whatever the role's default (behind
    // PgBouncer, docs/install.md has the role carry Herald's 30 s).
    await client.query('SET statement_timeout = 0');
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_ID]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    // Its own transaction, before any file runs: a database migrated under older names is
    // recorded under today's first, so none of its migrations runs twice.
    await inOwnTransaction(client, () => recordAllNames(client));
    const done = new Set((await client.query('SELECT name FROM schema_migrations')).rows.map((r) => r.name as string));
    const applied: string[] = [];
    for (const file of await migrationFiles()) {
      if (done.has(file)) continue;
      const sql = await readFile(join(MIGRATIONS_DIR, file), 'utf8');
      await inOwnTransaction(client, async () => {
        await client.query(sql);
        await client.query('INSERT INTO schema_migrations (name) SELECT unnest($1::text[]) ON CONFLICT (name) DO NOTHING', [namesOf(file)]);
      }).catch((error: Error) => {
        throw new Error(`migration ${file} failed: ${error.message}`);
      });
      applied.push(file);
    }
    return applied;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_ID]).catch(() => undefined);
    await client.query('RESET statement_timeout').catch(() => undefined);
    client.release();
  }
}

async function inOwnTransaction(client: PoolClient, work: () => Promise<void>): Promise<void> {
  await client.query('BEGIN');
  try {
    await work();
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}
