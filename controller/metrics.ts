// The controller's /metrics, /healthz and /readyz (both replicas serve them; the chart probes the
// port). Gauges are read from the running controller when Prometheus scrapes.
import { createServer, type Server } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { CHANNEL_FAILURES_METRIC } from '../core/live-activities/channel-health.js';
import type { RunningController } from './index.js';
import { listen } from '../core/http/listen.js';

export function controllerMetrics(controller: RunningController, opts: { defaults?: boolean } = {}): Registry {
  const registry = new Registry();
  if (opts.defaults) collectDefaultMetrics({ register: registry });
  new Gauge({
    name: 'herald_controller_leader',
    help: '1 while this replica holds the leader-election Lease.',
    registers: [registry],
    collect() {
      this.set(controller.isLeader ? 1 : 0);
    },
  });
  new Gauge({
    name: 'herald_controller_queue_depth',
    help: 'Keys waiting in a work queue.',
    labelNames: ['queue'],
    registers: [registry],
    collect() {
      this.set({ queue: 'apps' }, controller.apps.queue.length);
      this.set({ queue: 'sends' }, controller.sends.queue.length);
    },
  });
  new Gauge({
    name: 'herald_controller_watch_restarts',
    help: 'Watches restarted after an error, per resource.',
    labelNames: ['resource'],
    registers: [registry],
    collect() {
      this.set({ resource: 'apps' }, controller.apps.informers.apps.restarts);
      this.set({ resource: 'secrets' }, controller.apps.informers.secrets.restarts);
      this.set({ resource: 'sends' }, controller.sends.informer.restarts);
    },
  });
  // The api's and senders' counter of the same name: here only deletions (stage "delete"), counted
  // by the controller while it led the scheduler and set from those totals at each scrape.
  new Counter({
    ...CHANNEL_FAILURES_METRIC,
    registers: [registry],
    collect() {
      this.reset();
      for (const [reason, channels] of controller.channelDeleteFailures) this.inc({ stage: 'delete', reason }, channels);
    },
  });
  return registry;
}

export async function serveControllerMetrics(registry: Registry, host: string, port: number): Promise<{ server: Server; port: number }> {
  const server = createServer(async function controllerMetricsHandler(req, res) {
    if (req.url === '/metrics') {
      const body = await registry.metrics();
      res.writeHead(200, { 'content-type': registry.contentType });
      res.end(body);
    } else if (req.url === '/healthz' || req.url === '/readyz') {
      // Caches are synced before the server starts; a lost Lease ends the process.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    } else {
      res.writeHead(404).end();
    }
  });
  return { server, port: await listen(server, port, host) };
}
