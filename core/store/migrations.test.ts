import { expect } from 'chai';
import { checkNumbers, migrationFiles } from './migrate.js';
import { RENAMED_MIGRATIONS, namesOf } from './renamed-migrations.js';

describe('migration files', () => {
  it('refuses two files with one number, naming them', () => {
    expect(() => checkNumbers(['018_a.sql', '019_b.sql', '019_c.sql', '020_d.sql', '020_e.sql'])).to.throw(
      'migrations share a number: 019_b.sql, 019_c.sql; 020_d.sql, 020_e.sql',
    );
    expect(checkNumbers(['001_a.sql', '002_b.sql', '007_c.sql'])).to.deep.equal(['001_a.sql', '002_b.sql', '007_c.sql']);
  });

  it('every migration of core/store/migrations has a number of its own', async () => {
    const files = await migrationFiles();
    expect(new Set(files.map((f) => f.slice(0, 3))).size).to.equal(files.length);
  });

  it('the rename table names files that exist now, and old names that no file has', async () => {
    const files = new Set(await migrationFiles());
    const all = RENAMED_MIGRATIONS.flatMap((r) => [r.now, ...r.was]);
    expect(new Set(all).size, 'a name in two rows').to.equal(all.length);
    for (const { now, was } of RENAMED_MIGRATIONS) {
      expect(files.has(now), `${now} is a file`).to.equal(true);
      for (const old of was) expect(files.has(old), `${old} is no file`).to.equal(false);
    }
    expect(namesOf('024_live_activity_tokens.sql')).to.deep.equal(['024_live_activity_tokens.sql', '019_live_activity_tokens.sql']);
    expect(namesOf('001_init.sql')).to.deep.equal(['001_init.sql']);
  });
});
