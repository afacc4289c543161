// An event destination's health on the sender's /metrics (issue 28 point 3), read over HTTP as
// Prometheus reads it: state (delivering → retrying → failing → delivering), backlog records,
// dropped events, delivered events and failed attempts by kind; at most METRIC_DESTINATIONS
// destinations, failing ones first.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { pino } from 'pino';
import { useTestEnv } from '../env/index.js';
import { startEventDispatcher, type EventDispatcher } from '../../core/events/dispatcher.js';
import { destinationHealthForMetrics } from '../../core/events/health.js';
import { createSenderMetrics, dispatchObserver, serveMetrics } from '../../sender/metrics.js';
import { addDestination, startReceiver, whsec, type Receiver } from './event-receiver.js';
import { createTestApp } from './fixtures.js';

describe('events: destination health on the sender metrics', function () {
  this.timeout(60_000);
  const env = useTestEnv({ redis: false });
  const secret = whsec();
  let status = 500;
  let receiver: Receiver;
  let server: Server;
  let port: number;
  let dispatcher: EventDispatcher;
  let appId: string;
  let appName: string;

  before(async () => {
    receiver = await startReceiver(secret, () => status);
    const metrics = createSenderMetrics({ destinations: (limit) => destinationHealthForMetrics(env.pool, limit) });
    ({ server, port } = await serveMetrics(metrics.registry, '127.0.0.1', 0, () => true));
    dispatcher = startEventDispatcher(
      { pool: env.pool, logger: pino({ level: 'silent' }), httpHosts: ['127.0.0.1'], backoff: { baseMs: 100, maxMs: 100 }, observer: dispatchObserver(metrics) },
      false,
    );
    const app = await createTestApp(env.pool, 'evmetrics');
    appId = app.app.id;
    appName = app.app.name;
    await addDestination(env.pool, appId, 'backend', receiver.url, secret);
  });
  after(async () => {
    await dispatcher?.stop();
    await new Promise((r) => server?.close(r));
    await receiver?.close();
  });

  const scrape = async () => {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const value = (name: string, labels: string) => {
      const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels));
      return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
    };
    const of = `app="${appName}",destination="backend"`;
    return {
      state: ['delivering', 'retrying', 'failing'].find((s) => value('herald_event_destination_state', `${of},state="${s}"`) === 1),
      backlog: value('herald_event_destination_backlog_records', of),
      dropped: value('herald_event_destination_dropped_events', of),
      delivered: Number(/^herald_events_delivered_total (\d+)$/m.exec(text)?.[1]),
      failed5xx: value('herald_event_attempts_failed_total', 'kind="http_5xx"'),
    };
  };
  const record = (devices: number) =>
    env.pool.query(`INSERT INTO event_records (app_id, send_id, kind, body) VALUES ($1, 1, 'chunk', $2)`, [appId, JSON.stringify({ chunk: 0, s: Array.from({ length: devices }, () => randomUUID()), f: [], u: [] })]);

  it('retrying, failing after 5 minutes, then delivering again with its backlog delivered; dropped events shown', async () => {
    expect(await scrape()).to.include({ state: 'delivering', backlog: 0, dropped: 0, delivered: 0 });
    await record(4);
    await record(3);
    expect(await dispatcher.step()).to.equal(true);
    expect(await scrape()).to.include({ state: 'retrying', backlog: 2, failed5xx: 1 });
    await env.pool.query(`UPDATE event_destinations SET failing_since = clock_timestamp() - interval '6 minutes', retry_at = clock_timestamp(), dropped_events = 1200 WHERE app_id = $1`, [appId]);
    expect(await scrape()).to.include({ state: 'failing', backlog: 2, dropped: 1200 });
    status = 204;
    expect(await dispatcher.step()).to.equal(true);
    expect(await scrape()).to.include({ state: 'delivering', backlog: 0, delivered: 7, failed5xx: 1 });
    expect(receiver.accepted.flatMap((d) => d.events)).to.have.length(7);
  });

  it('reports at most the limit, failing destinations first', async () => {
    const other = (await createTestApp(env.pool, 'evmetrics-other')).app.id;
    await addDestination(env.pool, other, 'down', receiver.url, secret);
    await env.pool.query(`UPDATE event_destinations SET failing_since = clock_timestamp() - interval '1 hour' WHERE app_id = $1`, [other]);
    const one = await destinationHealthForMetrics(env.pool, 1);
    expect(one.map((h) => [h.appId, h.name, h.state])).to.deep.equal([[other, 'down', 'failing']]);
  });
});
