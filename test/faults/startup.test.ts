// Start-up errors of every role: a taken port, an unreachable
// server, a missing database, a bad URL → one line on stderr naming the setting and what to do,
// exit code 2, no stack trace.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { useTestEnv } from '../env/index.js';
import { freePort } from '../e2e/harness.js';

function run(role: string, env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['bin/herald.js', role], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) => child.on('exit', (code) => { clearTimeout(timer); resolve({ code, stderr }); }));
}

function expectOneLine(result: { code: number | null; stderr: string }, setting: string, what: RegExp): void {
  expect(result.code, result.stderr).to.equal(2);
  const lines = result.stderr.trim().split('\n');
  expect(lines, result.stderr).to.have.length(1);
  expect(lines[0]).to.contain(setting);
  expect(lines[0]).to.match(what);
  expect(result.stderr).not.to.match(/\n[ \t]+at /); // no stack trace
}

describe('start-up errors: one line naming the setting, exit 2', function () {
  this.timeout(120_000);
  const env = useTestEnv({ bus: false, redis: false });
  let taken: Server;
  let takenPort: number;

  before(async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    takenPort = (taken.address() as { port: number }).port;
  });
  after(() => {
    taken.close();
  });

  const base = (extra: Record<string, string> = {}) => env.childEnv({ HERALD_HTTP_HOST: '127.0.0.1', HERALD_HTTP_PORT: '0', HERALD_METRICS_PORT: '0', ...extra });
  const deadUrl = async () => `postgres://postgres@127.0.0.1:${await freePort()}/herald`;

  it('api: a taken HTTP port', async () => {
    expectOneLine(await run('api', base({ HERALD_HTTP_PORT: String(takenPort) })), 'HERALD_HTTP_PORT', /already in use.*free port/);
  });

  it('api: a bad database URL', async () => {
    expectOneLine(await run('api', base({ HERALD_DATABASE_URL: 'localhost:5432/herald' })), 'HERALD_DATABASE_URL', /must be a postgres:\/\//);
  });

  it('api: a database that does not exist', async () => {
    const missing = env.databaseUrl.replace(/\/[^/]+$/, '/herald_no_such_db');
    expectOneLine(await run('api', base({ HERALD_DATABASE_URL: missing })), 'HERALD_DATABASE_URL', /does not exist.*herald migrate/);
  });

  it('sender: a taken metrics port', async () => {
    expectOneLine(await run('sender', base({ HERALD_METRICS_PORT: String(takenPort) })), 'HERALD_METRICS_PORT', /already in use/);
  });

  it('sender: NATS unreachable', async () => {
    expectOneLine(await run('sender', base({ HERALD_NATS_URL: `nats://127.0.0.1:${await freePort()}` })), 'HERALD_NATS_URL', /cannot use NATS.*start nats-server/);
  });

  it('controller: a bad setting (an unreachable PostgreSQL with a reachable cluster is in controller.test.ts)', async () => {
    expectOneLine(await run('controller', base({ HERALD_REDIS_URL: 'localhost:6379' })), 'HERALD_REDIS_URL', /must be a redis:\/\//);
  });

  it('dev: a taken HTTP port', async () => {
    expectOneLine(await run('dev', base({ HERALD_HTTP_PORT: String(takenPort) })), 'HERALD_HTTP_PORT', /already in use/);
  });

  it('migrate: PostgreSQL unreachable', async () => {
    expectOneLine(await run('migrate', base({ HERALD_DATABASE_URL: await deadUrl() })), 'HERALD_DATABASE_URL', /cannot reach PostgreSQL/);
  });

  it('migrate: a bad setting', async () => {
    expectOneLine(await run('migrate', base({ HERALD_NATS_URL: 'http://127.0.0.1:4222' })), 'HERALD_NATS_URL', /must be a nats:\/\//);
  });
});
