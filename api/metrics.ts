// Prometheus metrics of the API process, on its own registry so tests can build several apps.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface ApiMetrics {
  registry: Registry;
  requests: Counter<'route' | 'method' | 'status'>;
  latency: Histogram<'route' | 'method'>;
  sends: Counter<'status'>;
}

/**
 * `outboxBacklog`: rows recorded but not yet on the bus (a NATS outage shows here first; issue 9).
 * Read at scrape time; a failed read (PostgreSQL down) leaves the last value.
 */
export function createApiMetrics(opts: { defaults?: boolean; outboxBacklog?: () => Promise<number> } = {}): ApiMetrics {
  const registry = new Registry();
  if (opts.defaults) collectDefaultMetrics({ register: registry });
  const backlog = opts.outboxBacklog;
  if (backlog) {
    new Gauge({
      name: 'herald_outbox_backlog',
      help: 'Bus messages recorded in the outbox and not yet published (capped at 100000)',
      registers: [registry],
      async collect() {
        this.set(await backlog());
      },
    });
  }
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
