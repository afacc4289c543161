// The adapters classify their clients' real failures (core/faults/unavailable.ts): a connection
// the PostgreSQL server ended, a pool that cannot connect, a NATS request nobody answers.
import { expect } from 'chai';
import pg from 'pg';
import { connect } from '@nats-io/transport-node';
import { DependencyUnavailableError, isUnavailable } from '../../core/faults/unavailable.js';
import { createPool, pgFailure } from '../../core/store/db.js';
import { NATS_URL, useTestEnv } from '../env/index.js';

describe('pgFailure: the PostgreSQL adapter classifies pg’s failures', () => {
  const env = useTestEnv({ bus: false, redis: false });

  it('a query on a connection the server ended is an outage; a bad statement and a bug are not', async function () {
    this.timeout(20_000);
    const url = env.databaseUrl;
    const pool = createPool(url, { max: 2 });
    const admin = createPool(url, { max: 1 });
    try {
      const client = await pool.connect();
      const pid = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
      const lost = new Promise((resolve) => client.once('error', resolve));
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      await lost;
      const ended = await client.query('SELECT 1').then(() => undefined, (e: unknown) => e);
      client.release(true);
      expect(ended, String(ended)).to.be.instanceOf(DependencyUnavailableError);
      expect(isUnavailable(ended)).to.equal(true);

      const bad = await pool.query('SELECT * FROM no_such_table').then(() => undefined, (e: unknown) => e);
      expect(bad).to.be.instanceOf(pg.DatabaseError);
      expect(isUnavailable(bad)).to.equal(false);
    } finally {
      await Promise.all([pool.end(), admin.end()]);
    }
    expect(pgFailure(new TypeError('bug'))).to.be.instanceOf(TypeError);
  });

  it('a pool that cannot connect is an outage', async function () {
    this.timeout(20_000);
    const pool = createPool('postgres://postgres@127.0.0.1:1/none', { max: 1 });
    const error = await pool.query('SELECT 1').then(() => undefined, (e: unknown) => e);
    await pool.end();
    expect(isUnavailable(error), String(error)).to.equal(true);
  });

  it('NATS: a request nobody answers is an outage by its class', async function () {
    this.timeout(20_000);
    const nc = await connect({ servers: NATS_URL });
    try {
      const error = await nc.request('herald.test.nobody.listens', '', { timeout: 500 }).then(() => undefined, (e: unknown) => e);
      expect(isUnavailable(error), String(error)).to.equal(true);
    } finally {
      await nc.close();
    }
  });
});
