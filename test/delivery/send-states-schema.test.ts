// The send statuses and sources as the database holds them: the CHECK constraints of `sends` and
// the partial indexes the claim, the planner and the backlog read must say what core/send-model/states.ts
// and core/formats/send-source.ts say (the migrations are history and keep their own copy).
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { SEND_STATUSES, statusInSql, unplannedSql } from '../../core/send-model/states.js';
import { SEND_SOURCES } from '../../core/formats/send-source.js';

/** The quoted words of a constraint or index predicate, in order ('queued', 'sending', …). */
const words = (sql: string) => [...sql.matchAll(/'([a-z_]+)'/g)].map((m) => m[1]);

describe('send statuses and sources in the database', () => {
  const env = useTestEnv({ bus: false, redis: false });

  async function checkOf(column: string): Promise<string> {
    const res = await env.pool.query<{ def: string }>(
      `SELECT pg_get_constraintdef(c.oid) AS def FROM pg_constraint c
        WHERE c.conrelid = 'sends'::regclass AND c.contype = 'c' AND pg_get_constraintdef(c.oid) LIKE $1`,
      [`%(${column} = ANY%`],
    );
    expect(res.rows, `one CHECK on sends.${column}`).to.have.length(1);
    return res.rows[0].def;
  }

  async function predicateOf(index: string): Promise<string> {
    const res = await env.pool.query<{ def: string }>(`SELECT pg_get_expr(i.indpred, i.indrelid) AS def FROM pg_index i WHERE i.indexrelid = $1::regclass`, [index]);
    return res.rows[0].def;
  }

  it('the status CHECK holds exactly the statuses of the table', async () => {
    expect(words(await checkOf('status'))).to.deep.equal([...SEND_STATUSES]);
  });

  it('the source CHECK holds exactly the send sources', async () => {
    expect(words(await checkOf('source'))).to.deep.equal([...SEND_SOURCES]);
  });

  it('sends_running is the underway group and sends_unplanned the unplanned condition', async () => {
    const client = await env.pool.connect();
    try {
      // One connection: the temporary table lives on it.
      const probe = async (sql: string) => {
        await client.query(`CREATE TEMP TABLE IF NOT EXISTS shape (LIKE sends)`);
        await client.query(`DROP INDEX IF EXISTS shape_probe`);
        await client.query(`CREATE INDEX shape_probe ON shape (id) WHERE ${sql}`);
        return (await client.query<{ def: string }>(`SELECT pg_get_expr(i.indpred, i.indrelid) AS def FROM pg_index i WHERE i.indexrelid = 'shape_probe'::regclass`)).rows[0].def;
      };
      // PostgreSQL prints a predicate in one normal form, so equal text is the same condition.
      expect(await probe(statusInSql('status', 'underway'))).to.equal(await predicateOf('sends_running'));
      expect(await probe(unplannedSql())).to.equal(await predicateOf('sends_unplanned'));
    } finally {
      client.release();
    }
  });
});
