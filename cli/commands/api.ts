// `herald api`: the HTTP front.
import { createHttpServer } from '../../core/http/server.js';
import { startOutboxRelay } from '../../core/bus/outbox.js';
import { createApi } from '../../api/server.js';
import { createApiMetrics } from '../../api/shared/metrics.js';
import { readBacklog } from '../../core/send/backlog.js';
import type { ApiDeps } from '../../api/shared/deps.js';
import type { Runtime } from '../runtime.js';
import { buildLimits } from './limits.js';
import { listenOn, openBus, openDatabase } from '../startup.js';
import { outageLog } from '../../core/faults/outage-log.js';
import { readFileSync } from 'node:fs';
import { LiveActivityBroadcast } from '../../api/live-activities/broadcast.js';
import { registerEgressMetrics } from '../../core/net/index.js';
import { FleetProviderTokens } from '../../core/apns/fleet-provider-tokens.js';

export async function runApi(rt: Runtime): Promise<void> {
  const { config, logger } = rt;
  const pool = await openDatabase(config.databaseUrl, { max: config.apiDatabaseConnections, sessionUrl: config.databaseSessionUrl, applicationName: 'herald-api', logger });
  const bus = await openBus(config.natsUrl, config.streamPrefix, { name: 'herald-api', logger });
  const limits = await buildLimits(rt, pool);
  const metrics = createApiMetrics({ defaults: true, backlog: () => readBacklog(pool) });
  registerEgressMetrics(metrics.registry, rt.dialer);
  // One provider token per team and key across the fleet (issue 37).
  const providerTokens = new FleetProviderTokens(pool, logger);
  providerTokens.register(metrics.registry);
  // Apple's broadcast push (issue 29): channels at starts, one request per update, for the Apps
  // that opt in; the gateway and CA settings are the senders'.
  const liveActivityBroadcast = new LiveActivityBroadcast(
    pool,
    {
      url: config.apnsUrl,
      sandboxUrl: config.apnsSandboxUrl,
      ca: config.apnsCaFile ? readFileSync(config.apnsCaFile, 'utf8') : undefined,
      broadcastUrl: config.apnsBroadcastUrl,
      client: { adapter: config.apnsClient, dialer: rt.dialer, providerTokens: providerTokens.source },
    },
    logger,
    metrics.registry,
  );
  const deps: ApiDeps = {
    pool,
    bus,
    logger,
    metrics,
    trustProxyHops: config.trustProxyHops,
    liveActivityBroadcast,
    ...limits.deps,
  };
  const app = createApi(deps);
  const server = createHttpServer(app.callback());
  const relayOutage = outageLog(logger, 'outbox relay');
  const stopRelay = startOutboxRelay(pool, bus, { onError: (e) => relayOutage.down(e), onOk: () => relayOutage.up() });
  const port = await listenOn(server, config.httpPort, config.httpHost, 'HERALD_HTTP_PORT', logger);
  logger.info({ port, dashboard: `http://${['0.0.0.0', '::', ''].includes(config.httpHost) ? '127.0.0.1' : config.httpHost}:${port}/dashboard/` }, 'api listening');
  // Machine-readable line for tests and scripts that start the api on port 0.
  if (process.env.HERALD_PRINT_PORT) process.stdout.write(`listening ${port}\n`);

  rt.onShutdown('clients', async () => {
    await liveActivityBroadcast.close();
    await limits.close();
    await bus.close();
    await pool.end();
  });
  rt.onShutdown('outbox relay', stopRelay);
  rt.onShutdown('http server', () => new Promise<void>((resolve) => {
    server.close(() => resolve()); // stops accepting; resolves once in-flight requests have finished
    server.closeIdleConnections();
  }));
}
