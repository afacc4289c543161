// Redis stopped and restarted under the api (DECISIONS "Limits": Redis down): answers keep coming,
// limited per process at the same rates (never unlimited), the outage is logged once, and the
// buckets go back to Redis by themselves. Uses its own redis-server, so no other suite is disturbed.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { pino } from 'pino';
import { Redis } from 'ioredis';
import { useTestEnv } from '../env/index.js';
import { waitFor } from '../support/wait.js';
import { RedisBucketStore } from '../../core/buckets/redis-store.js';
import { MemoryBucketStore } from '../../core/buckets/memory-store.js';
import { FallbackBucketStore } from '../../core/buckets/fallback-store.js';
import { BucketRateLimiter } from '../../api/rate-limit/bucket-limiter.js';
import { RATE_HEADERS, call, limiterRedis, makeApp, randomIp, spawnApi, startApi, type RunningApi, type TestApp, ignoreIdleClientErrorsOnTeardown } from './helpers.js';

const env = useTestEnv();
ignoreIdleClientErrorsOnTeardown(env);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startRedis(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
  const probe = new Redis(port, '127.0.0.1', { lazyConnect: true, retryStrategy: () => 50, maxRetriesPerRequest: null });
  probe.on('error', () => undefined);
  await probe.connect().catch(() => undefined);
  await probe.ping();
  probe.disconnect();
  return child;
}

/** How many draws (EVALSHA or EVAL of the script) this Redis server has run. */
async function scriptCalls(redis: Redis): Promise<number> {
  const stats = await redis.info('commandstats');
  return [...stats.matchAll(/cmdstat_(?:evalsha|eval):calls=(\d+)/g)].reduce((n, m) => n + Number(m[1]), 0);
}

async function stopRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  await new Promise<void>((resolve) => { child.once('exit', () => resolve()); child.kill('SIGKILL'); });
}

describe('Redis stopped and restarted during the test', function () {
  this.timeout(60_000);
  let port: number;
  let dir: string;
  let redisServer: ChildProcess;
  let client: Redis;
  let store: FallbackBucketStore;
  let api: RunningApi;
  let t: TestApp;
  const logs: { level: number; msg: string }[] = [];

  before(async () => {
    port = await freePort();
    dir = mkdtempSync(join(tmpdir(), 'herald-redis-'));
    redisServer = await startRedis(port, dir);
    client = limiterRedis(`redis://127.0.0.1:${port}`);
    await new Promise((resolve) => client.once('ready', resolve));
    const logger = pino({ level: 'info' }, { write: (line: string) => { logs.push(JSON.parse(line)); } });
    store = new FallbackBucketStore(new RedisBucketStore(client), new MemoryBucketStore(), logger);
    api = await startApi(env, { rateLimiter: new BucketRateLimiter(store, env.redisPrefix) });
    t = await makeApp(env.pool, { keyCount: 3 });
  });
  after(async () => {
    await api?.close();
    client?.disconnect();
    if (redisServer) await stopRedis(redisServer);
    rmSync(dir, { recursive: true, force: true });
  });

  const read = (key: string, ip: string) => call(api.url, 'GET', '/api/v1/notifications/999999999', { key, ip });

  it('answers limited throughout, logs once, and recovers by itself', async () => {
    const ip = randomIp();
    const up = await read(t.keys[0]!, ip);
    expect(up.status).to.equal(404);
    expect(await scriptCalls(client)).to.be.at.least(1);

    await stopRedis(redisServer);
    // Down: every answer still carries the headers, and the per-process buckets refuse past 40.
    const down = await Promise.all(Array.from({ length: 80 }, () => read(t.keys[1]!, ip)));
    for (const answer of down) {
      expect(answer.status).to.be.oneOf([404, 429]);
      for (const h of RATE_HEADERS) expect(answer.headers.get(h), h).to.be.a('string');
    }
    expect(down.filter((x) => x.status === 429).length, 'limited, never unlimited').to.be.at.least(1);
    expect(down.filter((x) => x.status === 404).length).to.be.at.least(40);
    expect(store.degraded).to.equal(true);
    for (let i = 0; i < 20; i++) expect((await read(t.keys[2]!, ip)).status).to.be.oneOf([404, 429]);

    redisServer = await startRedis(port, dir);
    // Every answer while it recovers is an answer (the call's 404 or a 429), never a failure.
    const meanwhile: number[] = [];
    await waitFor('the store back on Redis', async () => {
      if (!store.degraded) return true;
      meanwhile.push((await read(t.keys[2]!, ip)).status);
      return false;
    }, 20_000, 100);
    for (const status of meanwhile) expect(status).to.be.oneOf([404, 429]);
    // Back on Redis: the new server runs the draws again.
    const before = await scriptCalls(client);
    expect((await read(t.keys[0]!, ip)).status).to.equal(404);
    expect(await scriptCalls(client)).to.be.greaterThan(before);

    const outage = logs.filter((l) => /Redis unavailable/.test(l.msg));
    const recovery = logs.filter((l) => /Redis available again/.test(l.msg));
    expect(outage, 'the outage is logged once').to.have.length(1);
    expect(outage[0]!.level).to.equal(40);
    expect(recovery).to.have.length(1);
  });

  it('herald api started while Redis is down answers limited, then moves to Redis when it comes up', async () => {
    await stopRedis(redisServer);
    const child = await spawnApi(env, { HERALD_REDIS_URL: `redis://127.0.0.1:${port}` });
    try {
      const ip = randomIp();
      const answers = await Promise.all(Array.from({ length: 60 }, () => call(child.url, 'GET', '/api/v1/notifications/999999999', { key: t.keys[0], ip })));
      expect(answers.filter((x) => x.status === 429).length, 'limited while Redis is down').to.be.at.least(1);
      for (const answer of answers) expect(answer.headers.get('ratelimit-limit')).to.be.a('string');
      redisServer = await startRedis(port, dir);
      await waitFor('the api drawing on Redis again', async () => {
        await call(child.url, 'GET', '/api/v1/notifications/999999999', { key: t.keys[1], ip });
        return (await scriptCalls(client)) > 0;
      }, 20_000);
    } finally {
      await child.stop();
    }
  });
});
