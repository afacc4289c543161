// The egress proxy's gauges, registered by every role that connects out (api, sender,
// controller) on its own /metrics, from the dialer's snapshot at each scrape. Without a proxy
// there is nothing to show and nothing is registered (docs/operations.md "Metrics").
import { Gauge, type Registry } from 'prom-client';
import type { Dialer } from './dialer.js';

export const EGRESS_METRICS = ['herald_egress_proxy_up', 'herald_egress_tunnels_refused'] as const;

export function registerEgressMetrics(registry: Registry, dialer: Dialer): void {
  if (!dialer.state()) return;
  new Gauge({
    name: EGRESS_METRICS[0],
    help: 'The egress proxy (HTTPS_PROXY) answers: 0 from a tunnel it did not answer, or refused for our credentials (407), to the next one it opens',
    registers: [registry],
    collect() {
      this.set(dialer.state()?.up ? 1 : 0);
    },
  });
  new Gauge({
    name: EGRESS_METRICS[1],
    help: 'Targets (host:port) whose last tunnel the egress proxy refused (403 by its policy, 502 when it could not reach them); their connections are held',
    registers: [registry],
    collect() {
      this.set(dialer.state()?.refusedTargets ?? 0);
    },
  });
}
