// Private PostgreSQL, PgBouncer and Redis servers for the fault suite: started by the test on free
// ports in temporary directories, so they can be stopped, restarted and have their connections
// ended without touching the machine's own servers (BRIEF: never stop the shared ones). NATS is
// the e2e harness's PrivateNats.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../e2e/harness.js';
import { ensurePgbouncerInstalled, pgbouncerIni, portOpen } from '../env/services.js';
import { waitFor } from '../support/wait.js';

/** The newest installed PostgreSQL's binaries (Debian keeps them out of PATH). */
function pgBin(): string {
  if (process.env.HERALD_TEST_PG_BIN) return process.env.HERALD_TEST_PG_BIN;
  const versions = existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a)) : [];
  return join('/usr/lib/postgresql', versions[0] ?? '15', 'bin');
}
const PG_BIN = pgBin();
// pg_ctl daemonizes: a test process that dies without its after hook must still stop its cluster.
const clusters = new Set<PrivatePostgres>();
process.on('exit', () => {
  for (const pg of clusters) pg.stopNow();
});

/** initdb refuses to run as root: as root, the cluster belongs to the `postgres` user. */
function asPgUser(cmd: string, args: string[]): [string, string[]] {
  return userInfo().uid === 0 ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
}

export class PrivatePostgres {
  private constructor(readonly port: number, readonly dir: string) {}

  static async start(): Promise<PrivatePostgres> {
    if (!existsSync(join(PG_BIN, 'initdb'))) throw new Error(`PostgreSQL binaries not found in ${PG_BIN} (apt-get install postgresql)`);
    const dir = await mkdtemp(join(tmpdir(), 'herald-pg-'));
    if (userInfo().uid === 0) {
      const pg = execFileSync('id', ['-u', 'postgres']).toString().trim();
      chownSync(dir, Number(pg), Number(execFileSync('id', ['-g', 'postgres']).toString().trim()));
    }
    const [cmd, args] = asPgUser(join(PG_BIN, 'initdb'), ['-D', join(dir, 'data'), '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    execFileSync(cmd, args, { stdio: 'ignore' });
    const pg = new PrivatePostgres(await freePort(), dir);
    clusters.add(pg);
    await pg.up();
    return pg;
  }

  url(database = 'herald'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  private ctl(...args: string[]): void {
    const [cmd, argv] = asPgUser(join(PG_BIN, 'pg_ctl'), ['-D', join(this.dir, 'data'), ...args]);
    execFileSync(cmd, argv, { stdio: 'ignore' });
  }

  async up(): Promise<void> {
    const opts = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
    this.ctl('-o', opts, '-l', join(this.dir, 'log'), '-w', 'start');
    await waitFor(`private PostgreSQL to open port ${this.port}`, () => portOpen(this.port), 30_000, 100);
  }

  /** Stops the server: `fast` ends every session, as a restart or failover does. */
  async down(): Promise<void> {
    this.ctl('-m', 'fast', '-w', 'stop');
  }

  /** Synchronous immediate stop, for the exit hook. */
  stopNow(): void {
    try {
      this.ctl('-m', 'immediate', 'stop');
    } catch {
      /* already stopped */
    }
  }

  async close(): Promise<void> {
    await this.down().catch(() => undefined);
    clusters.delete(this);
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** PgBouncer in transaction mode in front of a private PostgreSQL (the machine's configuration, test/env/services.ts). */
export class PrivatePgbouncer {
  private child: ChildProcess | undefined;
  private constructor(readonly port: number, readonly dir: string) {}

  static async start(pg: PrivatePostgres): Promise<PrivatePgbouncer> {
    ensurePgbouncerInstalled();
    const dir = await mkdtemp(join(tmpdir(), 'herald-pgbouncer-'));
    const bouncer = new PrivatePgbouncer(await freePort(), dir);
    await writeFile(join(dir, 'pgbouncer.ini'), pgbouncerIni({ port: bouncer.port, serverPort: pg.port, dir }));
    if (userInfo().uid === 0) execFileSync('chown', ['-R', 'postgres:postgres', dir]);
    // In the foreground (no -d), and as postgres by exec (setpriv, not runuser, which would fork):
    // the child is the server itself, so killing it stops PgBouncer.
    const ini = join(dir, 'pgbouncer.ini');
    bouncer.child = userInfo().uid === 0
      ? spawn('setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', '/usr/sbin/pgbouncer', ini], { stdio: 'ignore' })
      : spawn('/usr/sbin/pgbouncer', [ini], { stdio: 'ignore' });
    bouncers.add(bouncer);
    await waitFor(`private PgBouncer to open port ${bouncer.port}`, () => portOpen(bouncer.port), 30_000, 100);
    return bouncer;
  }

  url(database = 'herald'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  /** Synchronous kill, for the exit hook. */
  stopNow(): void {
    if (this.child?.exitCode === null) this.child.kill('SIGKILL');
  }

  async close(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    bouncers.delete(this);
    if (child && child.exitCode === null) {
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await gone;
    }
    await rm(this.dir, { recursive: true, force: true });
  }
}
const bouncers = new Set<PrivatePgbouncer>();
process.on('exit', () => {
  for (const b of bouncers) b.stopNow();
});

export class PrivateRedis {
  private child: ChildProcess | undefined;
  private constructor(readonly port: number) {}

  static async start(): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await freePort());
    await redis.up();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async up(): Promise<void> {
    this.child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    await waitFor(`private Redis to open port ${this.port}`, () => portOpen(this.port), 30_000, 100);
  }

  async down(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await gone;
  }

  close(): Promise<void> {
    return this.down();
  }
}
