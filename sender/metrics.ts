// Sender metrics on /metrics (docs/operations.md "Metrics"): deliveries by outcome and reason, chunk
// duration, APNs latency, streams in flight, consumer lag.
import { createServer, type Server } from 'node:http';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { listen } from '../core/http/listen.js';

export interface SenderMetrics {
  registry: Registry;
  deliveries: Counter<'outcome' | 'reason'>;
  chunks: Counter<'result'>;
  chunkSeconds: Histogram<string>;
  apnsSeconds: Histogram<'status'>;
  inflight: Gauge<string>;
  apnsHeld: Counter<string>;
  apnsUnavailable: Gauge<string>;
  consumerLag: Gauge<'kind'>;
}

export function createSenderMetrics(opts: { defaults?: boolean; lag?: () => Promise<{ pending: number; working: number }> } = {}): SenderMetrics {
  const registry = new Registry();
  if (opts.defaults) collectDefaultMetrics({ register: registry });
  const lag = opts.lag;
  return {
    registry,
    deliveries: new Counter({
      name: 'herald_sender_deliveries_total',
      help: 'Device deliveries by final outcome (sent, failed, unsubscribed, left_out) and APNs reason',
      labelNames: ['outcome', 'reason'],
      registers: [registry],
    }),
    chunks: new Counter({
      name: 'herald_sender_chunks_total',
      help: 'Chunk jobs by result (recorded, duplicate, left_out, nak, exhausted)',
      labelNames: ['result'],
      registers: [registry],
    }),
    chunkSeconds: new Histogram({
      name: 'herald_sender_chunk_duration_seconds',
      help: 'Time from claiming a chunk to recording it',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
      registers: [registry],
    }),
    apnsSeconds: new Histogram({
      name: 'herald_sender_apns_request_duration_seconds',
      help: 'APNs request latency, per device attempt, by HTTP status (0: no answer)',
      labelNames: ['status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
      registers: [registry],
    }),
    inflight: new Gauge({
      name: 'herald_sender_apns_streams_in_flight',
      help: 'APNs requests (HTTP/2 streams) awaiting an answer',
      registers: [registry],
    }),
    apnsHeld: new Counter({
      name: 'herald_sender_apns_held_total',
      help: 'Device attempts the gateway did not decide (no answer, or its own 5xx), held and retried, never counted failed',
      registers: [registry],
    }),
    apnsUnavailable: new Gauge({
      name: 'herald_sender_apns_unavailable',
      help: '1 while the last round of a chunk got no decision from the APNs gateway (unreachable or failing), else 0',
      registers: [registry],
    }),
    consumerLag: new Gauge({
      name: 'herald_sender_consumer_lag',
      help: 'Chunks of running sends: pending (waiting to be claimed) and ack_pending (claimed, being delivered)',
      labelNames: ['kind'],
      registers: [registry],
      async collect() {
        if (!lag) return;
        try {
          const l = await lag();
          this.set({ kind: 'pending' }, l.pending);
          // The label keeps its JetStream-era name (dashboards, KEDA); it counts the chunks being worked.
          this.set({ kind: 'ack_pending' }, l.working);
        } catch {
          // NATS unreachable during a scrape: keep the last values.
        }
      },
    }),
  };
}

/** Serves /metrics and /healthz on `port` (0: any). Resolves with the server and its port. */
export async function serveMetrics(registry: Registry, host: string, port: number, healthy: () => boolean): Promise<{ server: Server; port: number }> {
  const server = createServer(async function metricsHandler(req, res) {
    if (req.url === '/metrics') {
      const body = await registry.metrics();
      res.writeHead(200, { 'content-type': registry.contentType });
      res.end(body);
    } else if (req.url === '/healthz' || req.url === '/readyz') {
      const ok = healthy();
      res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok }));
    } else {
      res.writeHead(404).end();
    }
  });
  return { server, port: await listen(server, port, host) };
}
