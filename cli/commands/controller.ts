// `herald controller`: the Kubernetes operator (docs/operator.md). Builds the clients, starts
// the controllers under leader election, and exits when leadership is lost (as client-go's
// controllers do: the work may already be the other replica's, and a restart is the clean way back).
import { readFileSync } from 'node:fs';
import { homedir, hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { kubeClients } from '../../controller/kube/client.js';
import { checkKubeReachable, loadKubeConfigFrom, type LoadedKubeConfig } from '../../controller/kube/config.js';
import { startController } from '../../controller/index.js';
import { controllerMetrics, serveControllerMetrics } from '../../controller/metrics.js';
import type { Runtime } from '../runtime.js';
import { fail } from '../runtime.js';
import { listening, openBus, openDatabase } from '../startup.js';
import { registerEgressMetrics } from '../../core/net/index.js';
import { FleetProviderTokens } from '../../core/apns/fleet-provider-tokens.js';

export async function runController(rt: Runtime): Promise<void> {
  const { config, logger } = rt;
  // Kubernetes first: a wrong or unreachable cluster is one line and exit 2, before anything starts.
  let kube: LoadedKubeConfig;
  try {
    kube = loadKubeConfigFrom({ heraldKubeconfig: config.kubeconfig, kubeconfig: config.kubeconfigList, serviceHost: config.kubernetesServiceHost, home: homedir() });
    const version = await checkKubeReachable(kube);
    logger.info({ kubeconfig: kube.source, server: kube.server, version }, 'Kubernetes API reachable');
  } catch (error) {
    fail((error as Error).message, 2);
  }
  const kc = kube.kc;
  const pool = await openDatabase(config.databaseUrl, { max: config.controllerDatabaseConnections, sessionUrl: config.databaseSessionUrl, applicationName: 'herald-controller', logger });
  const bus = await openBus(config.natsUrl, config.streamPrefix, { name: 'herald-controller', logger });
  const identity = config.podName ?? `${hostname()}-${randomBytes(3).toString('hex')}`;
  // One provider token per team and key across the fleet (issue 37).
  const providerTokens = new FleetProviderTokens(pool, logger);
  const controller = await startController({
    clients: kubeClients(kc),
    pool,
    bus,
    logger,
    settings: {
      namespace: config.namespace,
      mirror: config.mirrorSends,
      retentionMs: config.sendRetentionSeconds * 1000,
      finishedSendRetention: { finishedSendDays: config.finishedSendRetentionDays, chunkDays: config.chunkRetentionDays },
      resyncMs: config.controllerResyncSeconds * 1000,
      eventHttpHosts: config.eventHttpHosts,
      statusWritesPerSecond: config.kubeStatusWritesPerSecond,
      channelManagement: { broadcastUrl: config.apnsBroadcastUrl, ca: config.apnsCaFile ? readFileSync(config.apnsCaFile, 'utf8') : undefined, dialer: rt.dialer, providerTokens: providerTokens.source },
      identity,
      lease: { namespace: config.leaseNamespace, name: config.leaseName, durationSeconds: config.leaseDurationSeconds },
    },
  });
  rt.onShutdown('clients', async () => {
    await bus.close();
    await pool.end();
  });
  rt.onShutdown('controller', () => controller.stop());
  const registry = controllerMetrics(controller, { defaults: true });
  registerEgressMetrics(registry, rt.dialer);
  providerTokens.register(registry);
  const metrics = await listening('HERALD_METRICS_PORT', config.metricsPort, config.httpHost, () => serveControllerMetrics(registry, config.httpHost, config.metricsPort));
  rt.onShutdown('metrics server', () => new Promise<void>((resolve) => metrics.server.close(() => resolve())));
  void controller.lost.then(() => {
    logger.error('leadership lost; exiting so that only the new leader works');
    process.exit(1);
  });
  logger.info({ identity, namespace: config.namespace || '(all)', metricsPort: metrics.port }, 'controller started');
  // Machine-readable line for tests and scripts.
  if (process.env.HERALD_PRINT_PORT) process.stdout.write(`controller ready ${identity}\n`);
}
