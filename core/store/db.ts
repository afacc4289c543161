// The PostgreSQL pool and the one place pg failures become Herald errors.
import pg from 'pg';
import type { Logger } from '../log.js';
import { outageLog } from '../faults/outage-log.js';
import { DependencyUnavailableError, isProgrammingError } from '../faults/unavailable.js';

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

/**
 * The one function that turns pg's failures into Herald's: pg reports a lost, refused or timed-out
 * connection, a pool that ended, or a client left unusable with a plain Error (no class, no code),
 * while everything the server refused is a DatabaseError with its SQLSTATE. So an error from a
 * query or a connect that is neither a DatabaseError, nor a socket error with its errno, nor a
 * JavaScript bug, is the connection failing: a DependencyUnavailableError.
 */
export function pgFailure(error: unknown): unknown {
  if (!(error instanceof Error) || error instanceof pg.DatabaseError || error instanceof DependencyUnavailableError) return error;
  if (isProgrammingError(error) || typeof (error as { code?: unknown }).code === 'string') return error;
  return new DependencyUnavailableError('PostgreSQL', error);
}

type Callback = (error: Error | null | undefined, ...rest: unknown[]) => void;

/** Calls `run` with `args`, passing any failure (callback or promise form) through pgFailure. */
function classified(args: unknown[], run: (...a: unknown[]) => unknown): unknown {
  const last = args[args.length - 1];
  if (typeof last === 'function') {
    const done = last as Callback;
    return run(...args.slice(0, -1), (error: Error | null | undefined, ...rest: unknown[]) => done(error && (pgFailure(error) as Error), ...rest));
  }
  const result = run(...args);
  return result instanceof Promise ? result.catch((error: unknown) => Promise.reject(pgFailure(error))) : result;
}

class ClassifyingClient extends pg.Client {
  override query(...args: any[]): any {
    const first = args[0] as { submit?: unknown } | undefined;
    if (first && typeof first.submit === 'function') return super.query(first as pg.Submittable); // a stream (COPY)
    return classified(args, (...a) => (super.query as (...x: unknown[]) => unknown)(...a));
  }
}

class ClassifyingPool extends pg.Pool {
  override connect(...args: any[]): any {
    return classified(args, (...a) => (super.connect as (...x: unknown[]) => unknown)(...a));
  }
}

export function createPool(databaseUrl: string, opts: PoolOptions = {}): pg.Pool {
  const statementTimeout = opts.statementTimeoutMs ?? STATEMENT_TIMEOUT_MS;
  const pool = new ClassifyingPool({
    Client: ClassifyingClient,
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

/** A connection of its own, outside the pool (a session-level advisory lock), classified like the pool's. */
export function ownConnection(pool: pg.Pool): pg.Client {
  return new ClassifyingClient(pool.options);
}
