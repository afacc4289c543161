// Upgrading a database migrated at any landed version of Herald (issue 26, docs/install.md
// "Upgrading"): every set of migrations that a commit reachable from HEAD had (the fixture
// test/store/landed-migrations.json, so the test needs no git history) is applied to an empty
// database by that commit's own migrate.ts, then today's migrate() runs. The schema must
// then equal a freshly migrated one, today's migrate must apply exactly the migrations that era
// lacked (none twice: same name or same statements as one it had; none skipped), and every
// current file must be recorded.
import { expect } from 'chai';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate, migrationFiles } from '../../core/store/migrate.js';
import { RENAMED_MIGRATIONS } from '../../core/store/renamed-migrations.js';
import { createTestDatabase } from '../env/database.js';
import { ensurePostgres } from '../env/services.js';
import { applyLandedSet, FIXTURE, gitBlobId, landedSets, notLanded, readFixture, scratchRoot, statements, WRITE_COMMAND, type LandedSet } from './landed-migrations.js';
import { historyFixture, isShallowClone } from './migration-history.js';
import { schemaSnapshot } from './schema-snapshot.js';

const MIGRATIONS = join(dirname(fileURLToPath(import.meta.url)), '../../core/store/migrations');

// The fixture stays honest without history: its texts are the blobs their ids name, and today's
// folder is one of its sets. With history, it is exactly what git gives.
describe(`the landed migration sets (${FIXTURE})`, () => {
  it('holds each text under its git blob id, and no blob that no set names', () => {
    expect(gitBlobId(''), "git's id of the empty blob").to.equal('e69de29bb2d1d6434b8b29ae775ad8c2e48c5391');
    const fixture = readFixture();
    for (const [id, text] of Object.entries(fixture.blobs)) expect(gitBlobId(text), `the text under ${id}`).to.equal(id);
    const named = new Set(fixture.sets.flatMap((set) => [...Object.values(set.files), ...Object.values(set.modules)]));
    expect(Object.keys(fixture.blobs).sort()).to.deep.equal([...named].sort());
  });

  it("today's core/store/migrations is one of its sets (a new migration needs the fixture written again)", async () => {
    const today = new Map(await Promise.all((await migrationFiles()).map(async (name) => [name, await readFile(join(MIGRATIONS, name), 'utf8')] as const)));
    const why = notLanded(today, landedSets());
    if (why) expect.fail(why);
  });

  it('the check of today\'s folder names each difference and the command, and takes any landed set', () => {
    const set = (commit: string, files: Record<string, string>): LandedSet => ({ commit, subject: '', files: new Map(Object.entries(files)), modules: new Map() });
    const sets = [set('a'.repeat(40), { '001_a.sql': 'A' }), set('b'.repeat(40), { '001_a.sql': 'A', '002_b.sql': 'B' })];
    const cases: Array<[string, Record<string, string>, string | undefined]> = [
      ['the newest set', { '001_a.sql': 'A', '002_b.sql': 'B' }, undefined],
      ['an older set (history went back to it)', { '001_a.sql': 'A' }, undefined],
      ['a new file', { '001_a.sql': 'A', '002_b.sql': 'B', '003_c.sql': 'C' }, '003_c.sql is new'],
      ['a renamed file', { '001_a.sql': 'A', '003_b.sql': 'B' }, '002_b.sql is gone, 003_b.sql is new'],
      ['an edited file', { '001_a.sql': 'A', '002_b.sql': 'B2' }, '002_b.sql changed'],
      ['no file', {}, '001_a.sql is gone, 002_b.sql is gone'],
    ];
    for (const [what, files, changes] of cases) {
      const why = notLanded(new Map(Object.entries(files)), sets);
      if (changes === undefined) expect(why, what).to.equal(undefined);
      else expect(why, what).to.equal(`core/store/migrations is no landed set of ${FIXTURE} (against its newest set, bbbbbbb: ${changes}). Commit the migration, then run \`${WRITE_COMMAND}\` and commit ${FIXTURE}.`);
    }
  });

  it('equals what git history gives (needs the full history)', function () {
    if (isShallowClone()) {
      // Visible in the output: a shallow clone (CI's may be one) cannot read the history.
      this.test!.title += ' — SKIPPED: this clone is shallow, so the history cannot be read (git fetch --unshallow to run it)';
      this.skip();
    }
    const fixture = readFixture();
    const history = historyFixture();
    const message = `${FIXTURE} vs git history: run ${WRITE_COMMAND}`;
    // Piece by piece: mocha shows no diff of a value past 8 KB, and this one is 90 KB.
    const line = (set?: (typeof fixture.sets)[number]) => set && `${set.commit} ${set.subject} ${JSON.stringify(set.files)} ${JSON.stringify(set.modules)}`;
    for (let i = 0; i < Math.max(fixture.sets.length, history.sets.length); i++) {
      expect(line(fixture.sets[i]), `set ${i + 1} of ${history.sets.length}: ${message}`).to.equal(line(history.sets[i]));
    }
    expect(Object.keys(fixture.blobs), `the blob ids: ${message}`).to.deep.equal(Object.keys(history.blobs));
    for (const [id, text] of Object.entries(history.blobs)) expect(fixture.blobs[id], `blob ${id}: ${message}`).to.equal(text);
    expect(fixture, message).to.deep.equal(history);
  });
});

describe('upgrading from every landed migration set', function () {
  this.timeout(300_000);
  const sets = landedSets();
  let current: Array<{ name: string; statements: string }>;
  let fresh: string[];
  let dir: string;

  before(async () => {
    await ensurePostgres();
    await mkdir(scratchRoot(), { recursive: true });
    dir = await mkdtemp(join(scratchRoot(), 'herald-upgrade-'));
    current = await Promise.all(
      (await migrationFiles()).map(async (name) => ({ name, statements: statements(await readFile(join(MIGRATIONS, name), 'utf8')) })),
    );
    const db = await createTestDatabase({ migrated: false });
    try {
      expect(await migrate(db.pool)).to.deep.equal(current.map((f) => f.name));
      fresh = await schemaSnapshot(db.pool);
    } finally {
      await db.drop();
    }
  });

  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('history holds the oldest set, both renamed 005s and the three 019s', () => {
    const commits = sets.map((s) => s.commit.slice(0, 7));
    expect(commits[0], 'the oldest set comes first').to.equal('4620365');
    const had = (name: string) => sets.some((s) => s.files.has(name));
    for (const name of ['005_identity_verification.sql', '005_one_owner_delivery.sql', '019_live_activity_tokens.sql']) {
      expect(had(name), name).to.equal(true);
    }
  });

  it('every migration name that ever landed is a file today or in the rename table', () => {
    const known = new Set([...current.map((f) => f.name), ...RENAMED_MIGRATIONS.flatMap((r) => r.was)]);
    const landed = new Set(sets.flatMap((s) => [...s.files.keys()]));
    expect([...landed].filter((name) => !known.has(name)), 'renamed without an entry in core/store/renamed-migrations.ts').to.deep.equal([]);
  });

  // One case per landed set (about 20; each an empty database, its era's migrations, then today's).
  for (const set of sets) {
    it(`${set.commit.slice(0, 7)} (${set.files.size} files: ${set.subject.slice(0, 60)}) upgrades to today's schema`, async () => {
      const db = await createTestDatabase({ migrated: false });
      try {
        await applyLandedSet(set, db.pool, dir);
        const applied = await migrate(db.pool);
        expect(applied, 'the migrations today applied').to.deep.equal(lacking(set));
        expect(await schemaSnapshot(db.pool), 'schema after the upgrade vs a fresh database').to.deep.equal(fresh);
        const recorded = new Set((await db.pool.query('SELECT name FROM schema_migrations')).rows.map((r) => r.name as string));
        expect(current.map((f) => f.name).filter((name) => !recorded.has(name)), 'files not recorded').to.deep.equal([]);
        expect(await migrate(db.pool), 'a second run').to.deep.equal([]);
      } finally {
        await db.drop();
      }
    });
  }

  /** Today's files that `set` had neither by name nor by statements, in file order. */
  function lacking(set: LandedSet): string[] {
    const had = [...set.files].map(([name, text]) => ({ name, statements: statements(text) }));
    return current
      .filter((file) => !had.some((old) => old.name === file.name || old.statements === file.statements))
      .map((file) => file.name);
  }
});
