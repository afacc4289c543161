// The api's /metrics carries what the alerts need from the store (core/send/backlog.ts): the
// outbox backlog, running sends without progress, certificate expiry per app.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { makeApp } from '../support/apps.js';
import { createApiMetrics } from '../../api/shared/metrics.js';
import { readBacklog } from '../../core/send/backlog.js';
import { setCredentials } from '../../core/apps/app-store.js';

/** The value of one sample in Prometheus text format, or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('api /metrics: the store backlog behind the alerts', () => {
  const env = useTestEnv({ bus: false });

  it('is zero on an empty store, and no certificate series', async () => {
    const { registry } = createApiMetrics({ backlog: () => readBacklog(env.pool) });
    const text = await registry.metrics();
    expect(sample(text, 'herald_outbox_pending')).to.equal(0);
    expect(sample(text, 'herald_outbox_oldest_age_seconds')).to.equal(0);
    expect(sample(text, 'herald_sends_running')).to.equal(0);
    expect(sample(text, 'herald_sends_oldest_update_age_seconds')).to.equal(0);
    expect(text).not.to.contain('herald_app_credentials_expiry_timestamp_seconds{');
  });

  it('counts unpublished outbox rows, running sends without progress and certificate expiries', async () => {
    const token = await makeApp(env.pool, { name: 'token-app' });
    const cert = await makeApp(env.pool, { name: 'cert-app', credentials: false });
    const expiresAt = new Date('2031-05-01T00:00:00Z');
    await setCredentials(env.pool, cert.app.id, { kind: 'certificate', material: Buffer.from('pem'), expiresAt });
    await env.pool.query(`INSERT INTO outbox (subject, msg_id, payload, created_at) VALUES
      ('work.plan', 'm1', '{}', now() - interval '10 minutes'), ('work.plan', 'm2', '{}', now())`);
    await env.pool.query(
      `INSERT INTO sends (app_id, target_kind, request, status, updated_at) VALUES
        ($1, 'segment', '{}', 'sending', now() - interval '1 hour'),
        ($1, 'segment', '{}', 'queued', now()),
        ($1, 'segment', '{}', 'scheduled', now() - interval '2 hours')`,
      [token.app.id],
    );
    const { registry } = createApiMetrics({ backlog: () => readBacklog(env.pool) });
    const text = await registry.metrics();
    expect(sample(text, 'herald_outbox_pending')).to.equal(2);
    expect(sample(text, 'herald_outbox_oldest_age_seconds')).to.be.within(600, 3600);
    expect(sample(text, 'herald_sends_running')).to.equal(2); // the scheduled one is not running
    expect(sample(text, 'herald_sends_oldest_update_age_seconds')).to.be.within(3600, 7200);
    expect(sample(text, 'herald_app_credentials_expiry_timestamp_seconds{app="cert-app"}')).to.equal(expiresAt.getTime() / 1000);
    expect(text).not.to.contain('app="token-app"');
  });

  it('keeps serving the other metrics when the store does not answer', async () => {
    const { registry, requests } = createApiMetrics({ backlog: () => Promise.reject(new Error('ECONNREFUSED')) });
    requests.inc({ route: '/x', method: 'GET', status: '200' });
    const text = await registry.metrics();
    expect(sample(text, 'herald_http_requests_total{route="/x",method="GET",status="200"}')).to.equal(1);
    expect(text).to.contain('# HELP herald_outbox_pending'); // still listed; prom-client's initial 0 until a read succeeds
  });
});
