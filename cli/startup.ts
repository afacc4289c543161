// Start-up errors of every role, in one place: a dependency or a
// setting that makes a role unable to start is a StartupError naming the setting, what is wrong
// and what to do; main.ts prints it as one line and exits 2 (the same code as a bad setting), with
// no stack trace. At run time the same failures are outages the roles ride out instead.
import type { Server } from 'node:net';
import { createPool, type Pool, type PoolOptions } from '../core/store/db.js';
import { connectBus, type Bus } from '../core/bus/jetstream.js';
import { listen } from '../core/http/listen.js';
import type { Logger } from '../core/log.js';

export class StartupError extends Error {
  override name = 'StartupError';
  constructor(readonly setting: string, readonly problem: string, readonly remedy: string) {
    super(`${setting}: ${problem}; ${remedy}`);
  }
}

/** Where a URL points, without its credentials (never printed). */
function where(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return 'the configured address';
  }
}

const code = (error: unknown) => (error as { code?: string }).code;
const text = (error: unknown) => {
  const e = error as Error & { errors?: Error[] };
  return e.errors?.length ? e.errors.map((x) => x.message).join('; ') : e.message;
};

/** What a failed first PostgreSQL query means for whoever starts Herald. */
export function databaseStartupError(url: string, error: unknown): StartupError {
  const at = where(url);
  const setting = 'HERALD_DATABASE_URL';
  switch (code(error)) {
    case '3D000':
      return new StartupError(setting, `the database at ${at} does not exist`, 'run `herald migrate` (it creates it) or fix the database name');
    case '28P01':
    case '28000':
      return new StartupError(setting, `PostgreSQL at ${at} refused the user or password`, 'fix the credentials in the URL');
    case '42P01':
      return new StartupError(setting, `the database at ${at} has no Herald schema`, 'run `herald migrate` first');
  }
  return new StartupError(setting, `cannot reach PostgreSQL at ${at} (${text(error)})`, 'start PostgreSQL or fix the host and port');
}

/** A pool whose server answered and whose database holds the Herald schema. */
export async function openDatabase(url: string, opts: PoolOptions & { schema?: boolean } = {}): Promise<Pool> {
  let pool: Pool;
  try {
    pool = createPool(url, opts);
  } catch (error) {
    throw new StartupError('HERALD_DATABASE_URL', `not a PostgreSQL URL (${text(error)})`, 'use postgres://USER:PASSWORD@HOST:PORT/DATABASE');
  }
  try {
    if (opts.schema === false) await pool.query('SELECT 1');
    else await pool.query('SELECT 1 FROM sends LIMIT 0');
    return pool;
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw databaseStartupError(url, error);
  }
}

/** The NATS connection, or a StartupError naming HERALD_NATS_URL. */
export async function openBus(url: string, prefix: string, opts: { name: string; logger: Logger }): Promise<Bus> {
  try {
    return await connectBus(url, prefix, opts);
  } catch (error) {
    throw new StartupError('HERALD_NATS_URL', `cannot use NATS at ${where(url)} (${text(error)})`, 'start nats-server with JetStream (-js) or fix the URL');
  }
}

/** Listens, or a StartupError naming the port's setting (taken, or not allowed). */
export async function listenOn(server: Server, port: number, host: string, setting: string, logger?: Logger): Promise<number> {
  return listening(setting, port, host, () => listen(server, port, host, logger));
}

/** Runs a start-up step that listens (also through sender/ or controller/ code), naming the setting on failure. */
export async function listening<T>(setting: string, port: number, host: string, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    switch (code(error)) {
      case 'EADDRINUSE':
        throw new StartupError(setting, `port ${port} on ${host} is already in use`, `stop the process using it or set ${setting} to a free port`);
      case 'EACCES':
        throw new StartupError(setting, `port ${port} on ${host} is not allowed for this user`, `use a port above 1023 in ${setting}`);
      case 'EADDRNOTAVAIL':
      case 'ENOTFOUND':
        throw new StartupError('HERALD_HTTP_HOST', `cannot listen on ${host}:${port} (${text(error)})`, 'use an address of this machine, or 0.0.0.0');
    }
    throw error;
  }
}
