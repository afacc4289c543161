// The PostgreSQL pool and the one place pg failures become Herald errors.
import pg from 'pg';
import type { Logger } from '../log.js';
import { outageLog } from '../faults/outage-log.js';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
export type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

// bigint columns (send ids, counters) arrive as JS numbers: they stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export interface PoolOptions {
  max?: number;
  applicationName?: string;
  /** Where a lost connection is reported (once per outage); without it, silently dropped. */
  logger?: Logger;
  /** Server-side cap on one statement (ms); 0 = none (migrations). */
  statementTimeoutMs?: number;
}

/** Default cap on one statement: long enough for the planner's audience pages, short of a hang. */
export const STATEMENT_TIMEOUT_MS = 30_000;

export function createPool(databaseUrl: string, opts: PoolOptions = {}): pg.Pool {
  const statementTimeout = opts.statementTimeoutMs ?? STATEMENT_TIMEOUT_MS;
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: opts.max ?? 10,
    application_name: opts.applicationName ?? 'herald',
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 5_000,
    // The server cancels a statement past this; the client gives up a little later in case the
    // server itself stopped answering (a half-open connection), so no caller ever hangs.
    statement_timeout: statementTimeout || undefined,
    query_timeout: statementTimeout ? statementTimeout + 5_000 : undefined,
    idle_in_transaction_session_timeout: statementTimeout ? statementTimeout * 2 : undefined,
    keepAlive: true,
  });
  // A connection ended by the server (restart, failover, pg_terminate_backend) emits 'error' on
  // the pool (idle) or on the client (checked out); unhandled, either kills the process. The pool
  // drops that client and opens a new one on the next query, so logging is all there is to do.
  const outage = opts.logger ? outageLog(opts.logger, 'PostgreSQL') : undefined;
  const lost = (error: Error) => outage?.down(error);
  pool.on('error', lost);
  pool.on('connect', (client) => {
    client.on('error', lost);
    outage?.up();
  });
  return pool;
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
