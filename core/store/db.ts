// The PostgreSQL pool and the one place pg failures become Herald errors. Behind a pooler in
// transaction mode (PgBouncer), a pool's statements are unnamed and its connections carry no
// session settings, while the work that needs a session (a session advisory lock) gets a
// connection of its own to PostgreSQL itself (docs/install.md "PgBouncer").
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
  /**
   * PostgreSQL itself, when `databaseUrl` is a pooler in transaction mode (HERALD_DATABASE_SESSION_URL):
   * the pool's connections then send no session setting at connect (PgBouncer refuses a startup
   * parameter it does not know, and would hand the setting to whichever client gets the server
   * connection next) and prepare no named statement (a server connection is anyone's after each
   * transaction, so a name prepared by one client is another's "already exists"); the timeouts
   * are the role's on the server (ALTER ROLE … SET). ownConnection() opens here.
   */
  sessionUrl?: string;
}

/** What a pool carries for its own connections (ownConnection) and its clients (ClassifyingClient). */
interface HeraldPoolConfig extends pg.PoolConfig {
  /** Statements unnamed: a pooler in transaction mode is in front. */
  unnamedStatements?: boolean;
  /** The configuration of a connection of its own (ownConnection): PostgreSQL itself, with the session settings. */
  session?: pg.ClientConfig;
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
  private readonly unnamed: boolean;

  constructor(config?: HeraldPoolConfig) {
    super(config);
    this.unnamed = config?.unnamedStatements === true;
  }

  override query(...args: any[]): any {
    const first = args[0] as { submit?: unknown; name?: unknown } | undefined;
    if (first && typeof first.submit === 'function') return super.query(first as pg.Submittable); // a stream (COPY)
    // A named statement is prepared once per connection; behind a transaction pooler it is parsed each time instead.
    if (this.unnamed && first && typeof first === 'object' && first.name !== undefined) args[0] = { ...first, name: undefined };
    return classified(args, (...a) => (super.query as (...x: unknown[]) => unknown)(...a));
  }
}

class ClassifyingPool extends pg.Pool {
  override connect(...args: any[]): any {
    return classified(args, (...a) => (super.connect as (...x: unknown[]) => unknown)(...a));
  }

  // pool.query answers a connection that ends mid-statement with the client's 'error' event
  // (pg-pool listens for it beside the statement), which is pg's plain "Connection terminated
  // unexpectedly", never through the client's query: classified here too.
  override query(...args: any[]): any {
    return classified(args, (...a) => (super.query as (...x: unknown[]) => unknown)(...a));
  }
}

export function createPool(databaseUrl: string, opts: PoolOptions = {}): pg.Pool {
  const statementTimeout = opts.statementTimeoutMs ?? STATEMENT_TIMEOUT_MS;
  const connection = {
    application_name: opts.applicationName ?? 'herald',
    connectionTimeoutMillis: 5_000,
    // The client gives up a little after the server's cap, in case the server itself stopped
    // answering (a half-open connection), so no caller ever hangs.
    query_timeout: statementTimeout ? statementTimeout + 5_000 : undefined,
    keepAlive: true,
  };
  // The server cancels a statement past this, and ends a transaction left idle.
  const sessionSettings = {
    statement_timeout: statementTimeout || undefined,
    idle_in_transaction_session_timeout: statementTimeout ? statementTimeout * 2 : undefined,
  };
  const pooled = opts.sessionUrl !== undefined;
  const config: HeraldPoolConfig = {
    Client: ClassifyingClient,
    connectionString: databaseUrl,
    max: opts.max ?? 10,
    idleTimeoutMillis: 30_000,
    ...connection,
    ...(pooled ? {} : sessionSettings),
    unnamedStatements: pooled,
    session: { connectionString: opts.sessionUrl ?? databaseUrl, ...connection, ...sessionSettings },
  };
  const pool = new ClassifyingPool(config);
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

/**
 * A connection of its own, outside the pool, for work that needs a session (a session-level
 * advisory lock): to PostgreSQL itself when the pool is behind a transaction pooler (the pool's
 * `sessionUrl`), classified like the pool's.
 */
export function ownConnection(pool: pg.Pool): pg.Client {
  return new ClassifyingClient((pool.options as HeraldPoolConfig).session ?? pool.options);
}
