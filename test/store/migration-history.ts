// The migration sets that ever landed, read from git history: every commit reachable from HEAD
// that changed core/store/migrations, with that commit's migrate.ts, deduplicated by content. It
// writes test/store/landed-migrations.json (the upgrade test's input, ./landed-migrations.ts) and
// the upgrade test compares that file with it when the clone has the history.
//   npx tsx test/store/migration-history.ts --write    (after a commit that changes a migration)
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FIXTURE, WRITE_COMMAND, type LandedMigrationsJson } from './landed-migrations.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '../..');
const FOLDER = 'core/store/migrations';
const MIGRATE = 'core/store/migrate.ts';

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

/** Whether this clone lacks history (a `git clone --depth N`): then the sets cannot be read. */
export function isShallowClone(): boolean {
  return git('rev-parse', '--is-shallow-repository').trim() !== 'false';
}

/** Every distinct set of migrations (with its migrate.ts) that a commit reachable from HEAD had,
 * oldest first, in the fixture's form. */
export function historyFixture(): LandedMigrationsJson {
  if (isShallowClone()) throw new Error('the landed migration sets are read from the full git history (this clone is shallow: git fetch --unshallow)');
  const commits = git('rev-list', '--full-history', '--reverse', '--topo-order', 'HEAD', '--', FOLDER).split('\n').filter(Boolean);
  const sets = new Map<string, LandedMigrationsJson['sets'][number]>();
  const blobs = new Set<string>();
  for (const commit of commits) {
    const migrate = tree(commit, MIGRATE);
    if (migrate.length !== 1) throw new Error(`${commit} changed ${FOLDER} but has no ${MIGRATE}`);
    const files = tree(commit, `${FOLDER}/`).filter((f) => /^\d{3}_.+\.sql$/.test(f.name));
    const key = [migrate[0].blob, ...files.map((f) => `${f.name}:${f.blob}`).sort()].join(' ');
    if (sets.has(key)) continue;
    // The era's tests are never imported by its migrate.ts: left out, the fixture is smaller.
    const modules = tree(commit, 'core/store/').filter((f) => f.name.endsWith('.ts') && !f.name.endsWith('.test.ts'));
    for (const f of [...files, ...modules]) blobs.add(f.blob);
    const byName = (list: Array<{ blob: string; name: string }>) => Object.fromEntries(list.map((f) => [f.name, f.blob]));
    sets.set(key, { commit, subject: git('log', '-1', '--format=%s', commit).trim(), files: byName(files), modules: byName(modules) });
  }
  return {
    about: `Every distinct set of ${FOLDER} (with its era's core/store modules) reachable from HEAD, read from git history by test/store/migration-history.ts; texts by git blob id. Do not edit: run ${WRITE_COMMAND}.`,
    sets: [...sets.values()],
    blobs: Object.fromEntries([...blobs].sort().map((blob) => [blob, git('cat-file', 'blob', blob)])),
  };
}

if (resolve(process.argv[1] ?? '') === fileURLToPath(import.meta.url)) {
  if (process.argv[2] !== '--write') {
    console.error(`usage: ${WRITE_COMMAND}`);
    process.exit(2);
  }
  const fixture = historyFixture();
  writeFileSync(join(REPO, FIXTURE), `${JSON.stringify(fixture, null, 2)}\n`);
  console.log(`${FIXTURE}: ${fixture.sets.length} sets, ${Object.keys(fixture.blobs).length} blobs`);
}
