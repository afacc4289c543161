// Herald's pools behind the machine's PgBouncer in transaction mode (test/env/services.ts: a
// server pool of 4 per database, so Herald's clients really share server connections), with
// HERALD_DATABASE_SESSION_URL naming PostgreSQL itself (core/store/db.ts, docs/install.md
// "PgBouncer"): no session setting at connect, no named statement, and the work that needs a
// session (the scheduler's leadership lock, `herald migrate`) on a connection of its own to
// PostgreSQL, never on a server connection PgBouncer hands to others.
import { expect } from 'chai';
import pg from 'pg';
import { useTestEnv } from '../env/index.js';
import { PGBOUNCER_PORT } from '../env/services.js';
import { createTestDatabase, databaseUrl } from '../env/database.js';
import { createPool, type Pool } from '../../core/store/db.js';
import { SCHEDULER_LOCK, startScheduler, type Scheduler } from '../../core/send/scheduler.js';
import { migrationFiles } from '../../core/store/migrate.js';
import { DEFAULT_RETENTION } from '../../core/send/retention.js';
import { silentLogger } from '../../core/log.js';
import { herald } from '../support/cli.js';
import { waitFor } from '../support/wait.js';

const bouncerUrl = (database: string) => `postgres://postgres@127.0.0.1:${PGBOUNCER_PORT}/${database}`;

/** PgBouncer's admin console: the PostgreSQL backends of its server connections. */
async function bouncerBackends(database: string): Promise<number[]> {
  const admin = new pg.Client({ connectionString: bouncerUrl('pgbouncer') });
  await admin.connect();
  try {
    return (await admin.query('SHOW SERVERS')).rows.filter((r) => r.database === database).map((r) => Number(r.remote_pid));
  } finally {
    await admin.end();
  }
}

/** A named statement from each of `clients` connections at once, twice (each connection prepares it once). */
async function namedFromMany(pool: Pool, clients: number): Promise<void> {
  const held = await Promise.all(Array.from({ length: clients }, () => pool.connect()));
  try {
    for (let round = 0; round < 2; round++) {
      await Promise.all(held.map((c, i) => c.query({ name: 'herald-pgbouncer-probe', text: 'SELECT $1::int AS n', values: [i] })));
    }
  } finally {
    for (const c of held) c.release();
  }
}

describe('store: behind PgBouncer in transaction mode', function () {
  this.timeout(60_000);
  const env = useTestEnv({ bus: false, redis: false });
  const pools: Pool[] = [];
  const schedulers: Scheduler[] = [];
  const pooled = (opts: { sessionUrl?: string; max?: number } = {}) => {
    const pool = createPool(bouncerUrl(env.db.name), { max: opts.max ?? 10, sessionUrl: opts.sessionUrl });
    pool.on('error', () => undefined);
    pools.push(pool);
    return pool;
  };

  after(async () => {
    await Promise.all(schedulers.map((s) => s.stop()));
    await Promise.all(pools.map((p) => p.end().catch(() => undefined)));
  });

  it('a pool set for PostgreSQL itself cannot work there: its session settings and named statements are refused (the case the setting exists for)', async () => {
    const direct = pooled();
    const error = await direct.query('SELECT 1').then(() => undefined, (e: pg.DatabaseError) => e);
    expect(error?.message).to.equal('unsupported startup parameter: statement_timeout');
  });

  it('with the session URL, the pool connects and its named statements run from every connection at once', async () => {
    const pool = pooled({ sessionUrl: env.databaseUrl });
    await namedFromMany(pool, 10);
    expect((await pool.query({ name: 'herald-pgbouncer-probe-2', text: 'SELECT count(*)::int AS n FROM sends' })).rows[0].n).to.equal(0);
  });

  it("the scheduler's leadership lock is held on a connection to PostgreSQL itself, and moves when its holder stops", async () => {
    const deps = (pool: Pool) => ({ pool, logger: silentLogger(), retention: DEFAULT_RETENTION });
    const first = startScheduler(deps(pooled({ sessionUrl: env.databaseUrl })), 50);
    schedulers.push(first);
    await waitFor('the first scheduler leads', () => first.leading(), 10_000);
    const second = startScheduler(deps(pooled({ sessionUrl: env.databaseUrl })), 50);
    schedulers.push(second);
    const holder = async () => (await env.pool.query(`SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`, [SCHEDULER_LOCK])).rows.map((r) => Number(r.pid));
    const [pid] = await holder();
    expect(pid, 'the lock is held').to.be.a('number');
    expect(await bouncerBackends(env.db.name), 'not by a server connection PgBouncer hands to others').to.not.include(pid);
    expect(second.leading()).to.equal(false);
    await first.stop();
    await waitFor('the second scheduler leads once the first stops', () => second.leading(), 10_000);
    expect(await holder()).to.have.length(1).and.not.include(pid);
  });

  it('`herald migrate` works on the session URL alone (it never needs the pooler), with no statement timeout whatever the default', async () => {
    const fresh = await createTestDatabase({ migrated: false });
    try {
      // The cap docs/install.md has the role carry behind PgBouncer, made short: a migration outlasts it.
      await env.pool.query(`ALTER DATABASE ${fresh.name} SET statement_timeout = '20ms'`);
      const res = await herald(['migrate'], {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/root',
        // A pooler that is not there: migrate must not use it (its advisory lock is a session's).
        HERALD_DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere',
        HERALD_DATABASE_SESSION_URL: databaseUrl(fresh.name),
      });
      expect(res.code, res.stderr).to.equal(0);
      const applied = (await fresh.pool.query('SELECT name FROM schema_migrations')).rows.map((r) => r.name as string);
      expect(applied).to.include.members(await migrationFiles());
    } finally {
      await fresh.drop();
    }
  });
});
