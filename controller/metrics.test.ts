// The controller's /metrics of the broadcast channels its scheduler could not delete: the same
// counter as the api's and the senders' (herald_live_activity_channel_failures_total), stage
// "delete", read from the running controller's totals at each scrape.
import { expect } from 'chai';
import type { RunningController } from './index.js';
import { controllerMetrics } from './metrics.js';

describe('controller metrics: failed channel deletions', () => {
  // Only the fields controllerMetrics reads while collecting.
  const stub = (failures: Map<string, number>) =>
    ({
      isLeader: true,
      apps: { queue: { length: 0 }, informers: { apps: { restarts: 0 }, secrets: { restarts: 0 } } },
      sends: { queue: { length: 0 }, informer: { restarts: 0 } },
      channelDeleteFailures: failures,
    }) as unknown as RunningController;
  const series = async (registry: ReturnType<typeof controllerMetrics>) =>
    (await registry.getSingleMetricAsString('herald_live_activity_channel_failures_total')).split('\n').filter((l) => l && !l.startsWith('#'));

  it('counts each reason under stage "delete", growing as the sweep fails again', async () => {
    const failures = new Map([['ConnectionError', 2]]);
    const registry = controllerMetrics(stub(failures));
    expect(await series(registry)).to.deep.equal(['herald_live_activity_channel_failures_total{stage="delete",reason="ConnectionError"} 2']);
    failures.set('ConnectionError', 5).set('Status4xx', 1);
    expect(await series(registry)).to.deep.equal([
      'herald_live_activity_channel_failures_total{stage="delete",reason="ConnectionError"} 5',
      'herald_live_activity_channel_failures_total{stage="delete",reason="Status4xx"} 1',
    ]);
  });

  it('reports no series while no deletion failed', async () => {
    expect(await series(controllerMetrics(stub(new Map())))).to.deep.equal([]);
  });
});
