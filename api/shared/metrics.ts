// Prometheus metrics of the API process, on its own registry so tests can build several apps.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Backlog } from '../../core/send/backlog.js';

export interface ApiMetrics {
  registry: Registry;
  requests: Counter<'route' | 'method' | 'status'>;
  latency: Histogram<'route' | 'method'>;
  sends: Counter<'status'>;
}

export function createApiMetrics(opts: { defaults?: boolean; backlog?: () => Promise<Backlog> } = {}): ApiMetrics {
  const registry = new Registry();
  if (opts.defaults) collectDefaultMetrics({ register: registry });
  if (opts.backlog) backlogGauges(registry, opts.backlog);
  return {
    registry,
    requests: new Counter({
      name: 'herald_http_requests_total',
      help: 'HTTP requests by route, method and status',
      labelNames: ['route', 'method', 'status'],
      registers: [registry],
    }),
    latency: new Histogram({
      name: 'herald_http_request_duration_seconds',
      help: 'HTTP request latency by route',
      labelNames: ['route', 'method'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    sends: new Counter({
      name: 'herald_sends_created_total',
      help: 'Sends recorded by the API, by their status at creation',
      labelNames: ['status'],
      registers: [registry],
    }),
  };
}

/** The store's backlog for the alerts (outbox, running sends, certificate expiry), read once per scrape. */
function backlogGauges(registry: Registry, read: () => Promise<Backlog>): void {
  let current: Promise<Backlog | undefined> | undefined;
  // The gauges are collected in parallel: they share one read, forgotten after the scrape.
  const once = () =>
    (current ??= read()
      .catch(() => undefined) // database unreachable during a scrape: keep the last values
      .finally(() => setTimeout(() => (current = undefined), 1000).unref()));
  const gauge = (name: string, help: string, value: (b: Backlog) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        const b = await once();
        if (b) this.set(value(b));
      },
    });
  gauge('herald_outbox_pending', 'Outbox rows not yet published to the bus', (b) => b.outboxPending);
  gauge('herald_outbox_oldest_age_seconds', 'Age of the oldest unpublished outbox row (0: empty)', (b) => b.outboxOldestSeconds);
  gauge('herald_sends_running', 'Sends queued or sending', (b) => b.sendsRunning);
  gauge('herald_sends_oldest_update_age_seconds', 'Longest time a queued or sending send has gone without progress (0: none running)', (b) => b.sendsOldestUpdateSeconds);
  new Gauge({
    name: 'herald_app_credentials_expiry_timestamp_seconds',
    help: "Expiry of each app's APNs certificate (Unix time); token keys do not expire",
    labelNames: ['app'],
    registers: [registry],
    async collect() {
      const b = await once();
      if (!b) return;
      this.reset(); // an app whose certificate was replaced by a token key drops out
      for (const c of b.credentialExpiries) this.set({ app: c.app }, Math.floor(c.expiresAt.getTime() / 1000));
    },
  });
}
