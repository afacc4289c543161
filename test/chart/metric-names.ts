// The metric names the three roles really export, read from their registries (not from a list
// kept by hand), so the chart's alerts and dashboard cannot name a metric that does not exist.
import type { RunningController } from '../../controller/index.js';
import { createApiMetrics } from '../../api/shared/metrics.js';
import { createSenderMetrics } from '../../sender/metrics.js';
import { controllerMetrics } from '../../controller/metrics.js';
import { LiveActivityBroadcast } from '../../api/live-activities/broadcast.js';
import type { Pool } from '../../core/store/db.js';
import { silentLogger } from '../../core/log.js';
import { createDialer, parseProxyUrl, registerEgressMetrics } from '../../core/net/index.js';
import { FleetProviderTokens } from '../../core/apns/fleet-provider-tokens.js';

export async function exportedMetricNames(): Promise<string[]> {
  const idle = { outboxPending: 0, outboxOldestSeconds: 0, sendsRunning: 0, sendsOldestUpdateSeconds: 0, credentialExpiries: [] };
  // Only the fields controllerMetrics reads while collecting.
  const controller = {
    isLeader: false,
    apps: { queue: { length: 0 }, informers: { apps: { restarts: 0 }, secrets: { restarts: 0 } } },
    sends: { queue: { length: 0 }, informer: { restarts: 0 } },
    channelDeleteFailures: new Map(),
  } as unknown as RunningController;
  const api = createApiMetrics({ backlog: async () => idle }).registry;
  // The api's Live Activity broadcaster registers its own counters on the api's registry (as
  // herald api does); it is built here, never used, so no pool or gateway is reached.
  new LiveActivityBroadcast({} as Pool, { url: 'https://127.0.0.1:9' }, silentLogger(), api);
  const registries = [
    api,
    createSenderMetrics({ lag: async () => ({ pending: 0, working: 0 }) }).registry,
    controllerMetrics(controller),
  ];
  // Each role registers the egress proxy's gauges when HTTPS_PROXY is set (cli/commands/*.ts).
  const proxied = createDialer({ proxy: parseProxyUrl('http://127.0.0.1:9') });
  for (const registry of registries) registerEgressMetrics(registry, proxied);
  // And each its count of the provider tokens it minted for the fleet (cli/commands/*.ts).
  for (const registry of registries) new FleetProviderTokens({} as Pool, silentLogger()).register(registry);
  const names: string[] = [];
  for (const registry of registries) {
    for (const m of await registry.getMetricsAsJSON()) {
      if (String(m.type) === 'histogram') names.push(`${m.name}_bucket`, `${m.name}_sum`, `${m.name}_count`);
      else names.push(m.name);
    }
  }
  return names;
}

/** The herald_* metric names a PromQL expression reads. */
export function metricNamesIn(expr: string): string[] {
  return [...new Set(expr.match(/\bherald_[a-z0-9_]+/g) ?? [])];
}
