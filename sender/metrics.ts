// Sender metrics on /metrics (docs/operations.md "Metrics"): deliveries by gateway, outcome and
// reason, chunk duration, each gateway's latency, held attempts, unavailable gauge and requests in
// flight (APNs' and FCM's twins: the APNs names predate FCM and dashboards read them), consumer
// lag, failed Live Activity channel deletions.
import { createServer, type Server } from 'node:http';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { listen } from '../core/http/listen.js';
import { DESTINATION_STATES, type DestinationHealth } from '../core/events/health.js';
import type { DispatchObserver } from '../core/events/observer.js';
import { CHANNEL_FAILURES_METRIC } from '../core/live-activities/channel-health.js';
import type { ChannelSweepObserver } from '../core/live-activities/channel-sweep.js';

export interface SenderMetrics {
  registry: Registry;
  /** Each device's final outcome; `gateway` apns or fcm (forGateway), absent for a chunk exhausted before any gateway. */
  deliveries: Counter<'outcome' | 'reason' | 'gateway'>;
  chunks: Counter<'result'>;
  chunkSeconds: Histogram<string>;
  apnsSeconds: Histogram<'status'>;
  inflight: Gauge<string>;
  apnsHeld: Counter<string>;
  apnsUnavailable: Gauge<string>;
  fcmSeconds: Histogram<'status'>;
  fcmInflight: Gauge<string>;
  fcmHeld: Counter<string>;
  fcmUnavailable: Gauge<string>;
  consumerLag: Gauge<'kind'>;
  eventsDelivered: Counter<string>;
  eventAttemptsFailed: Counter<'kind'>;
  /** Channel deletions of ended Live Activities that failed, when this process leads the scheduler. */
  channelFailures: Counter<'stage' | 'reason'>;
}

/**
 * Destinations reported per scrape at most (failing first, then retrying, then the largest
 * backlogs: core/events/health.ts), so the app and destination labels stay bounded: 3 state
 * series, a backlog and a dropped count each, 2,500 series at most however many apps there are.
 */
export const METRIC_DESTINATIONS = 500;

export function createSenderMetrics(
  opts: { defaults?: boolean; lag?: () => Promise<{ pending: number; working: number }>; destinations?: (limit: number) => Promise<DestinationHealth[]> } = {},
): SenderMetrics {
  const registry = new Registry();
  if (opts.defaults) collectDefaultMetrics({ register: registry });
  eventDestinationGauges(registry, opts.destinations);
  return {
    registry,
    ...chunkMetrics(registry),
    ...apnsMetrics(registry),
    ...fcmMetrics(registry),
    consumerLag: consumerLagGauge(registry, opts.lag),
    ...eventMetrics(registry),
    channelFailures: new Counter({ ...CHANNEL_FAILURES_METRIC, registers: [registry] }),
  };
}

/** Deliveries and chunks: what the sender did. */
function chunkMetrics(registry: Registry): Pick<SenderMetrics, 'deliveries' | 'chunks' | 'chunkSeconds'> {
  return {
    deliveries: new Counter({
      name: 'herald_sender_deliveries_total',
      help: 'Device deliveries by gateway (apns, fcm), final outcome (sent, failed, unsubscribed, left_out: the credentials refused) and the gateway\'s reason',
      labelNames: ['outcome', 'reason', 'gateway'],
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
  };
}

/** Apple's gateway as the sender sees it. */
function apnsMetrics(registry: Registry): Pick<SenderMetrics, 'apnsSeconds' | 'inflight' | 'apnsHeld' | 'apnsUnavailable'> {
  return {
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
  };
}

/** FCM as the sender sees it. */
function fcmMetrics(registry: Registry): Pick<SenderMetrics, 'fcmSeconds' | 'fcmInflight' | 'fcmHeld' | 'fcmUnavailable'> {
  return {
    fcmSeconds: new Histogram({
      name: 'herald_sender_fcm_request_duration_seconds',
      help: 'FCM request latency, per device attempt, by HTTP status (0: no answer)',
      labelNames: ['status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
      registers: [registry],
    }),
    fcmInflight: new Gauge({
      name: 'herald_sender_fcm_streams_in_flight',
      help: 'FCM requests (HTTP/2 streams) awaiting an answer',
      registers: [registry],
    }),
    fcmHeld: new Counter({
      name: 'herald_sender_fcm_held_total',
      help: 'Device attempts FCM did not decide (no answer, its own 5xx, the project\'s quota), held and retried, never counted failed',
      registers: [registry],
    }),
    fcmUnavailable: new Gauge({
      name: 'herald_sender_fcm_unavailable',
      help: '1 while the last round of a chunk got no decision from FCM (unreachable, failing or over quota), else 0',
      registers: [registry],
    }),
  };
}

/** The event dispatcher's outcomes (core/events/dispatcher.ts). */
function eventMetrics(registry: Registry): Pick<SenderMetrics, 'eventsDelivered' | 'eventAttemptsFailed'> {
  return {
    eventsDelivered: new Counter({
      name: 'herald_events_delivered_total',
      help: 'Events accepted by the apps\' event destinations (2xx), sent by this process',
      registers: [registry],
    }),
    eventAttemptsFailed: new Counter({
      name: 'herald_event_attempts_failed_total',
      help: 'Failed attempts at a batch of events, by kind (http_429, http_503, http_4xx, http_5xx, redirect, no_answer, refused, error); each is retried',
      labelNames: ['kind'],
      registers: [registry],
    }),
  };
}

/** Chunks of running sends, read at each scrape. */
function consumerLagGauge(registry: Registry, lag: (() => Promise<{ pending: number; working: number }>) | undefined): SenderMetrics['consumerLag'] {
  return new Gauge({
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
  });
}

/**
 * The same metrics with every delivery counted under `gateway` (the tally counts outcomes without
 * knowing which gateway decided them: sender/deliver.ts counts each gateway's part through this).
 */
export function forGateway(metrics: SenderMetrics, gateway: 'apns' | 'fcm'): SenderMetrics {
  const all = metrics.deliveries;
  const deliveries = Object.create(all) as SenderMetrics['deliveries'];
  deliveries.inc = ((labels?: Partial<Record<'outcome' | 'reason' | 'gateway', string>> | number, value?: number) =>
    typeof labels === 'object' ? all.inc({ ...labels, gateway }, value) : all.inc({ gateway }, labels)) as typeof all.inc;
  return { ...metrics, deliveries };
}

/** The channel sweep's failed deletions as this process's counter (stage "delete"). */
export function channelSweepObserver(metrics: SenderMetrics): ChannelSweepObserver {
  return { deleteFailed: (reason, channels) => metrics.channelFailures.inc({ stage: 'delete', reason }, channels) };
}

/** The dispatcher's outcomes as this process's counters. */
export function dispatchObserver(metrics: SenderMetrics): DispatchObserver {
  return {
    delivered: (events) => metrics.eventsDelivered.inc(events),
    failed: (kind) => metrics.eventAttemptsFailed.inc({ kind }),
  };
}

/**
 * Each destination's state, backlog and dropped events, read from PostgreSQL when scraped (every
 * sender reports the same values: aggregate with max). Series of a destination gone are dropped.
 */
function eventDestinationGauges(registry: Registry, read: ((limit: number) => Promise<DestinationHealth[]>) | undefined): void {
  let last: Promise<DestinationHealth[] | undefined> | undefined;
  // One read for the three gauges of a scrape (collected together): they share the read in flight.
  const health = () => (last ??= (read ? read(METRIC_DESTINATIONS) : Promise.resolve([])).catch(() => undefined).finally(() => (last = undefined)));
  const labels = (h: DestinationHealth) => ({ app: h.appName, destination: h.name });
  new Gauge({
    name: 'herald_event_destination_state',
    help: 'An event destination\'s state: 1 for the state it is in (delivering, retrying, failing: failing after 5 minutes of failed attempts), 0 for the others',
    labelNames: ['app', 'destination', 'state'],
    registers: [registry],
    async collect() {
      const rows = await health();
      if (!rows) return; // PostgreSQL unreachable during a scrape: keep the last values
      this.reset();
      for (const h of rows) for (const state of DESTINATION_STATES) this.set({ ...labels(h), state }, h.state === state ? 1 : 0);
    },
  });
  new Gauge({
    name: 'herald_event_destination_backlog_records',
    help: 'Event records recorded after an event destination\'s place (each holds up to 1,000 events; counted up to 100,000)',
    labelNames: ['app', 'destination'],
    registers: [registry],
    async collect() {
      const rows = await health();
      if (!rows) return;
      this.reset();
      for (const h of rows) this.set(labels(h), h.backlogRecords);
    },
  });
  new Gauge({
    name: 'herald_event_destination_dropped_events',
    help: 'Events retention removed before an event destination had them (older than HERALD_CHUNK_RETENTION_DAYS), since the destination was added',
    labelNames: ['app', 'destination'],
    registers: [registry],
    async collect() {
      const rows = await health();
      if (!rows) return;
      this.reset();
      for (const h of rows) this.set(labels(h), h.droppedEvents);
    },
  });
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
