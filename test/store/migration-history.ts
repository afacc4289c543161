// The migration sets that ever landed, read from git at test time (no copies of old SQL in the
// repository): every commit reachable from HEAD that changed core/store/migrations, with that
// commit's migrate.ts, deduplicated by content. An old set is applied by its own migrate.ts, so the
// database records what that era's `herald migrate` recorded.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Pool } from '../../core/store/db.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '../..');
const FOLDER = 'core/store/migrations';
const MIGRATE = 'core/store/migrate.ts';

export interface LandedSet {
  /** The first commit (oldest) that had exactly this set. */
  readonly commit: string;
  readonly subject: string;
  readonly migrateBlob: string;
  /** File name → blob id, as at that commit. */
  readonly files: ReadonlyMap<string, string>;
}

function git(...args: string[]): string {
  return execFileSync('git', ['-C', REPO, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
}

function tree(commit: string, path: string): Array<{ blob: string; name: string }> {
  return git('ls-tree', commit, path)
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [meta, file] = line.split('\t');
      return { blob: meta.split(' ')[2], name: file.slice(file.lastIndexOf('/') + 1) };
    });
}

/** Every distinct set of migrations (with its migrate.ts) that a commit reachable from HEAD had. */
export function landedSets(): LandedSet[] {
  let shallow: string;
  try {
    shallow = git('rev-parse', '--is-shallow-repository').trim();
  } catch (error) {
    throw new Error(`the upgrade test reads old migrations from git history, and git failed: ${(error as Error).message}`);
  }
  if (shallow !== 'false') throw new Error('the upgrade test needs the full git history (this clone is shallow: git fetch --unshallow)');
  const commits = git('rev-list', '--full-history', '--reverse', '--topo-order', 'HEAD', '--', FOLDER).split('\n').filter(Boolean);
  const seen = new Map<string, LandedSet>();
  for (const commit of commits) {
    const migrate = tree(commit, MIGRATE);
    if (migrate.length !== 1) throw new Error(`${commit} changed ${FOLDER} but has no ${MIGRATE}`);
    const files = new Map(tree(commit, `${FOLDER}/`).filter((f) => /^\d{3}_.+\.sql$/.test(f.name)).map((f) => [f.name, f.blob]));
    const key = [migrate[0].blob, ...[...files].map(([name, blob]) => `${name}:${blob}`).sort()].join(' ');
    if (!seen.has(key)) {
      const subject = git('log', '-1', '--format=%s', commit).trim();
      seen.set(key, { commit, subject, migrateBlob: migrate[0].blob, files });
    }
  }
  return [...seen.values()];
}

export function blobText(blob: string): string {
  return git('cat-file', 'blob', blob);
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
  for (const [name, blob] of set.files) await writeFile(join(root, 'migrations', name), blobText(blob));
  for (const { name, blob } of tree(set.commit, 'core/store/').filter((f) => f.name.endsWith('.ts'))) {
    await writeFile(join(root, name), blobText(blob));
  }
  const old = (await import(pathToFileURL(join(root, 'migrate.ts')).href)) as { migrate?: (pool: Pool) => Promise<unknown> };
  if (typeof old.migrate !== 'function') throw new Error(`${MIGRATE} of ${set.commit} exports no migrate(pool)`);
  await old.migrate(pool);
}

/** A migration's statements without its comments and layout: a renamed file whose comments were
 * reworded is still the same migration. */
export function statements(sql: string): string {
  return sql.replace(/--[^\n]*/g, '').replace(/\s+/g, ' ').trim();
}
