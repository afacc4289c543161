// The migration sets that ever landed, as test/store/landed-migrations.json holds them. The upgrade
// test reads this fixture and never git, so it runs the same in a shallow clone (CI's depth is not
// ours to choose). ./migration-history.ts writes the fixture from git history; the upgrade test
// checks it against today's folder always and against git history when the clone has it. An old
// set is applied by its own migrate.ts, so the database records what that era's `herald migrate`
// recorded.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Pool } from '../../core/store/db.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '../..');
export const FIXTURE = 'test/store/landed-migrations.json';
export const WRITE_COMMAND = 'npx tsx test/store/migration-history.ts --write';

/** The fixture as stored: file contents once each, by git blob id. */
export interface LandedMigrationsJson {
  readonly about: string;
  readonly sets: ReadonlyArray<{
    /** The first commit (oldest) that had exactly this set (its migrate.ts and migration files). */
    readonly commit: string;
    readonly subject: string;
    /** Migration file name → blob id, as at that commit. */
    readonly files: Readonly<Record<string, string>>;
    /** core/store/*.ts (tests left out) → blob id: migrate.ts and the modules it imports. */
    readonly modules: Readonly<Record<string, string>>;
  }>;
  /** Blob id → text. */
  readonly blobs: Readonly<Record<string, string>>;
}

export interface LandedSet {
  readonly commit: string;
  readonly subject: string;
  /** Migration file name → its text at that commit. */
  readonly files: ReadonlyMap<string, string>;
  /** core/store module name → its text at that commit. */
  readonly modules: ReadonlyMap<string, string>;
}

export function readFixture(): LandedMigrationsJson {
  return JSON.parse(readFileSync(join(REPO, FIXTURE), 'utf8')) as LandedMigrationsJson;
}

/** Every distinct landed set, oldest first, with its texts. */
export function landedSets(fixture: LandedMigrationsJson = readFixture()): LandedSet[] {
  const text = (blob: string): string => {
    if (!Object.hasOwn(fixture.blobs, blob)) throw new Error(`${FIXTURE} names blob ${blob} but holds no text for it (${WRITE_COMMAND})`);
    return fixture.blobs[blob];
  };
  const texts = (byName: Readonly<Record<string, string>>) => new Map(Object.entries(byName).map(([name, blob]) => [name, text(blob)]));
  return fixture.sets.map((set) => ({ commit: set.commit, subject: set.subject, files: texts(set.files), modules: texts(set.modules) }));
}

/** Why today's migration files (name → text) are no landed set, or undefined when they are one.
 * Any landed set, not only the newest: history can return to an earlier set (a file edited, then
 * edited back), and git then gives that set under its first commit, not last, so "the newest" could
 * never be satisfied, however often the fixture were written. A new, renamed, edited or removed
 * file still fails here (such a folder is in no landed set), the message naming the difference
 * from the newest set; a migration not yet committed gets the same message, whose first step is
 * to commit it (the fixture holds only what landed, so writing it before changes nothing). */
export function notLanded(today: ReadonlyMap<string, string>, sets: readonly LandedSet[]): string | undefined {
  const same = (files: ReadonlyMap<string, string>) => files.size === today.size && [...files].every(([name, text]) => today.get(name) === text);
  if (sets.some((set) => same(set.files))) return undefined;
  const newest = sets.at(-1)?.files ?? new Map<string, string>();
  const changes = [...new Set([...newest.keys(), ...today.keys()])].sort().flatMap((name) => {
    if (!newest.has(name)) return [`${name} is new`];
    if (!today.has(name)) return [`${name} is gone`];
    return newest.get(name) === today.get(name) ? [] : [`${name} changed`];
  });
  return (
    `core/store/migrations is no landed set of ${FIXTURE} (against its newest set, ${sets.at(-1)?.commit.slice(0, 7) ?? 'none'}: ` +
    `${changes.join(', ')}). Commit the migration, then run \`${WRITE_COMMAND}\` and commit ${FIXTURE}.`
  );
}

/** Git's id of a blob with this text: the fixture's ids are checked against their texts with it. */
export function gitBlobId(text: string): string {
  const body = Buffer.from(text, 'utf8');
  return createHash('sha1').update(`blob ${body.length}\0`).update(body).digest('hex');
}

/** A scratch folder inside the repository, so that a bare import of an era's module (`pg`) finds
 * today's node_modules. */
export function scratchRoot(): string {
  return join(REPO, 'node_modules/.cache');
}

/** Applies `set` to `pool` with the migrate.ts of its commit, written with its files and the
 * modules beside it (core/store/*.ts of that commit) to `dir`. */
export async function applyLandedSet(set: LandedSet, pool: Pool, dir: string): Promise<void> {
  const root = join(dir, createHash('sha256').update(set.commit).digest('hex').slice(0, 12), 'core/store');
  await mkdir(join(root, 'migrations'), { recursive: true });
  for (const [name, text] of set.files) await writeFile(join(root, 'migrations', name), text);
  for (const [name, text] of set.modules) await writeFile(join(root, name), text);
  const old = (await import(pathToFileURL(join(root, 'migrate.ts')).href)) as { migrate?: (pool: Pool) => Promise<unknown> };
  if (typeof old.migrate !== 'function') throw new Error(`core/store/migrate.ts of ${set.commit} exports no migrate(pool)`);
  await old.migrate(pool);
}

/** A migration's statements without its comments and layout: a renamed file whose comments were
 * reworded is still the same migration. */
export function statements(sql: string): string {
  return sql.replace(/--[^\n]*/g, '').replace(/\s+/g, ' ').trim();
}
