// Makes sure the real servers the integration tests need are up: PostgreSQL (5432), Redis (6379),
// NATS with JetStream (4222) and PgBouncer in transaction mode in front of that PostgreSQL (6432).
// Starts a stopped one with the same command the machines use, and installs its Debian package
// first when it is missing (a fresh CI machine).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { waitFor } from '../support/wait.js';

export function portOpen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
    socket.setTimeout(1000, () => { socket.destroy(); resolve(false); });
  });
}

function waitForPort(port: number, what: string): Promise<boolean> {
  return waitFor(`${what} to open port ${port}`, () => portOpen(port), 30_000, 100);
}

function sh(cmd: string): void {
  const res = spawnSync('bash', ['-c', cmd], { stdio: 'inherit' });
  if (res.status !== 0) throw new Error(`command failed (${res.status}): ${cmd}`);
}

let aptUpdated = false;
function aptInstall(...packages: string[]): void {
  if (!aptUpdated) { sh('apt-get update -qq'); aptUpdated = true; }
  sh(`DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${packages.join(' ')}`);
}

const has = (bin: string) => spawnSync('bash', ['-c', `command -v ${bin}`]).status === 0;

export async function ensurePostgres(): Promise<void> {
  if (await portOpen(5432)) return;
  if (!existsSync('/etc/postgresql')) aptInstall('postgresql');
  const version = readdirSync('/etc/postgresql')[0];
  sh(`pg_ctlcluster --skip-systemctl-redirect ${version} main start || true`);
  await waitForPort(5432, 'PostgreSQL');
  // Trust on loopback, as the project's machines are set up; a fresh Debian cluster uses peer/md5.
  const hba = `/etc/postgresql/${version}/main/pg_hba.conf`;
  const trusted = execFileSync('bash', ['-c', `grep -c '^host all all 127.0.0.1/32 trust' ${hba} || true`]).toString().trim();
  if (trusted === '0') {
    sh(`sed -i '1i host all all 127.0.0.1/32 trust\\nhost all all ::1/128 trust' ${hba} && pg_ctlcluster --skip-systemctl-redirect ${version} main reload`);
  }
}

export async function ensureRedis(): Promise<void> {
  if (await portOpen(6379)) return;
  if (!has('redis-server')) aptInstall('redis-server');
  sh('mkdir -p /var/lib/redis /var/log/redis && redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log');
  await waitForPort(6379, 'Redis');
}

export async function ensureNats(): Promise<void> {
  if (await portOpen(4222)) return;
  if (!existsSync('/usr/sbin/nats-server')) aptInstall('nats-server');
  sh('mkdir -p /var/lib/nats-server && start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log');
  await waitForPort(4222, 'NATS');
}

/** The machine's PgBouncer (tests of Herald behind it: test/store/pgbouncer.test.ts and others). */
export const PGBOUNCER_PORT = 6432;

/**
 * PgBouncer's configuration in transaction mode (the common mode, and the one that breaks session
 * features): every database name of `server` reached as `postgres` (the machines' trust setup), a
 * small server pool so that Herald's clients really share server connections. `dir` holds the
 * pid and log files. Shared by the machine's PgBouncer and the fault suite's private one.
 */
export function pgbouncerIni(opts: { port: number; serverPort: number; dir: string; poolSize?: number }): string {
  return [
    '[databases]',
    `* = host=127.0.0.1 port=${opts.serverPort} user=postgres`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${opts.port}`,
    'unix_socket_dir =',
    'auth_type = any',
    'admin_users = postgres',
    'pool_mode = transaction',
    `default_pool_size = ${opts.poolSize ?? 4}`,
    'max_client_conn = 2000',
    // A PostgreSQL that is down fails the waiting queries after this instead of holding them
    // for PgBouncer's default two minutes (docs/install.md "PgBouncer").
    'query_wait_timeout = 10',
    'server_login_retry = 1',
    `pidfile = ${opts.dir}/pgbouncer.pid`,
    `logfile = ${opts.dir}/pgbouncer.log`,
    '',
  ].join('\n');
}

/** Debian's pgbouncer binary (its package also starts a service we leave alone: it listens on 6432 only when configured). */
export function ensurePgbouncerInstalled(): void {
  if (!existsSync('/usr/sbin/pgbouncer')) aptInstall('pgbouncer');
}

export async function ensurePgbouncer(): Promise<void> {
  if (await portOpen(PGBOUNCER_PORT)) return;
  ensurePgbouncerInstalled();
  // PgBouncer refuses to run as root: as root it runs as postgres, in a directory of its own.
  const root = process.getuid?.() === 0;
  const dir = root ? '/var/lib/herald-pgbouncer' : `${process.env.HOME}/.cache/herald/pgbouncer`;
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}/pgbouncer.ini`, pgbouncerIni({ port: PGBOUNCER_PORT, serverPort: 5432, dir }));
  if (root) sh(`chown -R postgres:postgres ${dir}`);
  sh(`start-stop-daemon --start --oknodo ${root ? '--chuid postgres ' : ''}--exec /usr/sbin/pgbouncer -- -d ${dir}/pgbouncer.ini`);
  await waitForPort(PGBOUNCER_PORT, 'PgBouncer');
}

/** nghttpd and h2load (Debian's nghttp2-server, nghttp2-client): an independent HTTP/2 peer for
 * the APNs transport's tests (test/apns/lean-peers.test.ts) and the ceiling in bench/delivery. */
export function ensureNghttp2(): void {
  if (!has('nghttpd') || !has('h2load')) aptInstall('nghttp2-server', 'nghttp2-client');
}

export async function ensureServices(): Promise<void> {
  await ensurePostgres();
  await ensureRedis();
  await ensureNats();
  await ensurePgbouncer();
  ensureNghttp2();
}
