// Migrations are recorded by file name (schema_migrations.name), so a file renumbered after it
// landed would run again on every database that recorded its old name. This table is every such
// rename in the history of core/store/migrations; migrate() records a migration under all its names
// once it finds any of them (and records all of them when it applies one), so today's migrate
// skips what an older one applied, and an older image's migrate (a rollback) skips what today's
// applied. test/store/upgrade.test.ts fails when a name that ever landed is neither a file nor here.
import type { PoolClient } from './db.js';

export interface RenamedMigration {
  /** The file's name today. */
  readonly now: string;
  /** The names it landed under before, oldest first. */
  readonly was: readonly string[];
}

export const RENAMED_MIGRATIONS: readonly RenamedMigration[] = [
  // 07c65da: two 005 files arrived from parallel work (issues 12 and 13).
  { now: '006_identity_verification.sql', was: ['005_identity_verification.sql'] },
  // 88fe4f7: a third 005 (issue 10), after both.
  { now: '007_one_owner_delivery.sql', was: ['005_one_owner_delivery.sql'] },
  // Issue 26: three files shared 019 (045d5c8); the table and its index take the next numbers.
  { now: '024_live_activity_tokens.sql', was: ['019_live_activity_tokens.sql'] },
  { now: '025_live_activity_tokens_ended.sql', was: ['019_live_activity_tokens_ended.sql'] },
];

/** Every name `file` has had, its current one first. */
export function namesOf(file: string): string[] {
  const renamed = RENAMED_MIGRATIONS.find((r) => r.now === file);
  return [file, ...(renamed?.was ?? [])];
}

/** Records each renamed migration under all its names when any of them is recorded, keeping the
 * first record's time. Run in the caller's transaction. */
export async function recordAllNames(client: PoolClient): Promise<void> {
  for (const { now, was } of RENAMED_MIGRATIONS) {
    await client.query(
      `INSERT INTO schema_migrations (name, applied_at)
       SELECT n, first.applied_at
         FROM (SELECT min(applied_at) AS applied_at FROM schema_migrations WHERE name = ANY($1)) AS first,
              unnest($1::text[]) AS n
        WHERE first.applied_at IS NOT NULL
       ON CONFLICT (name) DO NOTHING`,
      [[now, ...was]],
    );
  }
}
