// The PostgreSQL pool and the one place pg failures become Herald errors.
import pg from 'pg';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
export type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

// bigint columns (send ids, counters) arrive as JS numbers: they stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export function createPool(databaseUrl: string, opts: { max?: number; applicationName?: string } = {}): pg.Pool {
  return new pg.Pool({
    connectionString: databaseUrl,
    max: opts.max ?? 10,
    application_name: opts.applicationName ?? 'herald',
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 5_000,
  });
}

/** Runs `work` in one transaction on one connection: COMMIT on success, ROLLBACK on any error. */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
