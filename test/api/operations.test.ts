// /healthz, /readyz, /metrics, and graceful shutdown of a real `herald api` process.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { useTestEnv } from '../env/index.js';
import { startTestApi, useTestApi } from '../support/api-server.js';
import { makeApp } from '../support/apps.js';
import { startHerald } from '../support/processes.js';
import type { Pool } from '../../core/store/db.js';

describe('api: operations', () => {
  const env = useTestEnv();
  const api = useTestApi(env);

  it('answers /healthz while the process runs', async () => {
    const res = await api.request('GET', '/healthz');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ status: 'ok' });
  });

  it('answers /readyz 200 when PostgreSQL answers, 503 when it does not; NATS is reported, not required', async () => {
    expect((await api.request('GET', '/readyz')).body).to.deep.equal({ status: 'ready', checks: { postgres: 'ok', nats: 'ok' } });
    const deadPool = { query: async () => { throw new Error('ECONNREFUSED'); } } as unknown as Pool;
    const sick = await startTestApi(env, { pool: deadPool });
    try {
      const res = await sick.request('GET', '/readyz');
      expect(res.status).to.equal(503);
      expect(res.body.checks).to.deep.equal({ postgres: 'unavailable', nats: 'ok' });
    } finally {
      await sick.close();
    }
    // NATS down: sends are still recorded (the outbox publishes them later), so the api stays ready.
    const deadBus = { ...env.bus, ping: async () => { throw new Error('NATS is not connected'); } };
    const noNats = await startTestApi(env, { bus: deadBus });
    try {
      const res = await noNats.request('GET', '/readyz');
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ status: 'ready', checks: { postgres: 'ok', nats: 'unavailable' } });
    } finally {
      await noNats.close();
    }
  });

  it('exposes request counts, latency and sends by status on /metrics', async () => {
    const app = await makeApp(env.pool);
    await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, include_subscription_ids: [] } });
    const res = await api.request('GET', '/metrics');
    expect(res.status).to.equal(200);
    expect(res.body).to.contain('herald_http_requests_total{route="/api/v1/notifications",method="POST",status="200"} 1');
    expect(res.body).to.contain('herald_http_request_duration_seconds_bucket');
    expect(res.body).to.contain('herald_sends_created_total{status="approved"} 1');
  });

  it('finishes in-flight requests on SIGTERM, then exits 0', async function () {
    this.timeout(60_000);
    const proc = await startHerald('api', env.childEnv());
    // A request whose body arrives slowly is in flight when SIGTERM comes.
    const app = await makeApp(env.pool);
    const body = JSON.stringify({ app_id: app.app.id, contents: { en: 'x' }, include_subscription_ids: [] });
    const { request } = await import('node:http');
    const answer = new Promise<number>((resolve, reject) => {
      const req = request(`${proc.url}/api/v1/notifications`, {
        method: 'POST',
        headers: { authorization: `Key ${app.key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      }, (res) => { res.resume(); resolve(res.statusCode ?? 0); });
      req.on('error', reject);
      req.write(body.slice(0, 10));
      setTimeout(() => {
        proc.child.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(10)), 300);
      }, 200);
    });
    expect(await answer).to.equal(200);
    expect(await proc.exited).to.equal(0);
  });

  it('refuses to start with a clear message when a setting is invalid', async () => {
    const child = spawn(process.execPath, ['bin/herald.js', 'api'], { env: env.childEnv({ HERALD_HTTP_PORT: 'eighty' }) });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).to.equal(2);
    expect(stderr).to.contain('HERALD_HTTP_PORT must be a whole number');
  });
});
