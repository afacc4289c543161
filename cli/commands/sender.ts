// `herald sender`: the delivery worker (docs/delivery.md). Builds the clients, starts the sender
// and its /metrics, and on SIGTERM stops claiming, lets taken chunks finish (or hands them back), then closes its clients and exits.
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { startSender, createSenderMetrics, serveMetrics, senderPoolSize, type Sender } from '../../sender/index.js';
import { chunkBacklog } from '../../core/delivery/claim.js';
import type { Runtime } from '../runtime.js';
import { listening, openBus, openDatabase } from '../startup.js';
import { outageLog } from '../../core/faults/outage-log.js';
import { EVENT_LANES } from '../../core/events/dispatcher.js';
import { destinationHealthForMetrics } from '../../core/events/health.js';
import { registerEgressMetrics } from '../../core/net/index.js';
import { FleetProviderTokens } from '../../core/apns/fleet-provider-tokens.js';
import { fleetFcmTokens } from '../../core/fcm/fleet-access-tokens.js';

export async function runSender(rt: Runtime, opts: { serveMetrics?: boolean } = {}): Promise<void> {
  await startSenderRole(rt, opts);
}

export async function startSenderRole(rt: Runtime, opts: { serveMetrics?: boolean } = {}): Promise<Sender> {
  const { config, logger } = rt;
  const concurrency = config.senderConcurrency;
  const liveActivitySlots = config.senderLiveActivitySlots;
  const max = config.senderDatabaseConnections ?? senderPoolSize(concurrency, liveActivitySlots);
  const pool = await openDatabase(config.databaseUrl, { max, sessionUrl: config.databaseSessionUrl, applicationName: 'herald-sender', logger });
  const bus = await openBus(config.natsUrl, config.streamPrefix, { name: 'herald-sender', logger });
  // Redis only holds the throttle buckets: without it throttled sends wait, nothing else stops.
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 2, lazyConnect: false });
  const redisOutage = outageLog(logger, 'Redis');
  redis.on('error', (error) => redisOutage.down(error));
  redis.on('ready', () => redisOutage.up());
  const metrics = createSenderMetrics({
    defaults: true,
    lag: () => chunkBacklog(pool),
    destinations: (limit) => destinationHealthForMetrics(pool, limit),
  });
  registerEgressMetrics(metrics.registry, rt.dialer);
  // One provider token per team and key across the fleet (issue 37).
  const providerTokens = new FleetProviderTokens(pool, logger);
  providerTokens.register(metrics.registry);
  const sender = await startSender({
    pool,
    bus,
    logger,
    redis,
    redisPrefix: config.redisPrefix,
    metrics,
    concurrency,
    liveActivitySlots,
    events: { httpHosts: config.eventHttpHosts, lanes: EVENT_LANES, dialer: rt.dialer },
    retention: { finishedSendDays: config.finishedSendRetentionDays, chunkDays: config.chunkRetentionDays },
    broadcastUrl: config.apnsBroadcastUrl,
    apns: {
      url: config.apnsUrl,
      sandboxUrl: config.apnsSandboxUrl,
      ca: config.apnsCaFile ? readFileSync(config.apnsCaFile, 'utf8') : undefined,
      client: { adapter: config.apnsClient, connections: config.apnsConnections, maxConcurrentStreams: config.apnsMaxStreams, dialer: rt.dialer, providerTokens: providerTokens.source },
    },
    fcm: {
      url: config.fcmUrl,
      ca: config.fcmCaFile ? readFileSync(config.fcmCaFile, 'utf8') : undefined,
      client: { connections: config.fcmConnections, dialer: rt.dialer },
      // One access token per App across the fleet, as Apple's provider token (issue 39 point 2).
      tokens: fleetFcmTokens(pool, logger, providerTokens.minted),
    },
    worker: {
      leaseMs: config.senderLeaseMs,
      maxChunkStarts: config.senderMaxChunkStarts,
      maxAttempts: config.senderMaxAttempts,
      gatewayHoldMs: config.senderGatewayHoldMs,
      backoff: { baseMs: config.senderRetryBaseMs, maxMs: 5000 },
    },
  });
  let ready = true;
  rt.onShutdown('clients', async () => {
    redis.disconnect();
    await bus.close();
    await pool.end();
  });
  if (opts.serveMetrics !== false) {
    const { server, port } = await listening('HERALD_METRICS_PORT', config.metricsPort, config.httpHost, () =>
      serveMetrics(metrics.registry, config.httpHost, config.metricsPort, () => ready),
    );
    logger.info({ port }, 'sender metrics listening');
    if (process.env.HERALD_PRINT_PORT) process.stdout.write(`metrics ${port}\n`);
    rt.onShutdown('metrics server', () => new Promise<void>((resolve) => server.close(() => resolve())));
  }
  rt.onShutdown('sender', async () => {
    ready = false;
    await sender.stop();
  });
  logger.info({ concurrency, liveActivitySlots }, 'sender started');
  if (process.env.HERALD_PRINT_PORT) process.stdout.write('sender ready\n');
  return sender;
}
