// The operator's test harness: a real kube-apiserver with our CRDs (test/kube), the per-file
// PostgreSQL/NATS/Redis env, the controller in-process (or as `herald controller` processes), and
// small kubectl helpers.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { stringify } from 'yaml';
import { pino } from 'pino';
import { startControlPlane, type ControlPlane, type KubectlResult } from '../kube/control-plane.js';
import type { TestEnv } from '../env/index.js';
import { kubeClients, loadKubeConfig, type KubeClients } from '../../controller/kube/client.js';
import { startController, type ControllerSettings, type RunningController } from '../../controller/index.js';
import type { Logger } from '../../core/log.js';
import { DEFAULT_RETENTION } from '../../core/send/retention.js';
import { waitFor } from '../support/wait.js';

export function ok(result: KubectlResult): string {
  expect(result.code, `kubectl failed: ${result.stderr}`).to.equal(0);
  return result.stdout;
}

// The one bounded wait (test/support/wait.ts), re-exported for the controller tests' imports.
export { waitFor };

export const manifest = (kind: string, name: string, body: Record<string, unknown>, namespace = 'default') =>
  stringify({ apiVersion: kind === 'Secret' ? 'v1' : 'herald.dev/v1alpha1', kind, metadata: { name, namespace }, ...body });

export const testLogger = (): Logger => pino({ level: process.env.HERALD_TEST_LOG_LEVEL ?? 'silent' }) as Logger;

/** Starts one control plane for the file (before/after hooks). */
export function useControlPlane(): { readonly cp: ControlPlane; kubectl(args: string[], input?: string): Promise<KubectlResult>; apply(yaml: string): Promise<string>; getJson<T = any>(...args: string[]): Promise<T> } {
  let cp: ControlPlane | undefined;
  before(async function () {
    this.timeout(30 * 60_000); // a first run may build the binaries
    cp = await startControlPlane({ crds: true });
  });
  after(async function () {
    this.timeout(60_000);
    await cp?.stop();
  });
  const need = () => {
    if (!cp) throw new Error('control plane not started');
    return cp;
  };
  return {
    get cp() {
      return need();
    },
    kubectl: (args, input) => need().kubectl(args, { input }),
    apply: async (yaml) => ok(await need().kubectl(['apply', '-f', '-'], { input: yaml })),
    getJson: async (...args) => JSON.parse(ok(await need().kubectl(['get', ...args, '-o', 'json']))),
  };
}

export interface ControllerOptions extends Partial<Omit<ControllerSettings, 'lease'>> {
  kubeconfig?: string;
  leaseName?: string;
  leaseNamespace?: string;
}

/** The controller in this process, with test-sized timings. */
export async function startTestController(env: TestEnv, kubeconfig: string, opts: ControllerOptions = {}): Promise<RunningController & { clients: KubeClients }> {
  const clients = kubeClients(loadKubeConfig(opts.kubeconfig ?? kubeconfig));
  const controller = await startController({
    clients,
    pool: env.pool,
    bus: env.bus,
    logger: testLogger(),
    settings: {
      namespace: opts.namespace ?? '',
      mirror: opts.mirror ?? 'broadcasts',
      retentionMs: opts.retentionMs ?? 24 * 3600_000,
      finishedSendRetention: opts.finishedSendRetention ?? DEFAULT_RETENTION,
      resyncMs: opts.resyncMs ?? 60_000,
      eventHttpHosts: opts.eventHttpHosts,
      eventHealthEveryMs: opts.eventHealthEveryMs,
      statusWritesPerSecond: opts.statusWritesPerSecond ?? 50,
      statusIntervalMs: opts.statusIntervalMs ?? 500,
      identity: opts.identity ?? `test-${randomBytes(3).toString('hex')}`,
      lease: {
        namespace: opts.leaseNamespace ?? 'default',
        name: opts.leaseName ?? `herald-controller-${randomBytes(3).toString('hex')}`,
        durationSeconds: 4,
        timings: { retryPeriodMs: 300 },
      },
    },
  });
  await waitFor('leadership', async () => controller.isLeader, 20_000, 100);
  return Object.assign(controller, { clients });
}

export function condition(obj: any, type: string): { status: string; reason: string; message: string; observedGeneration?: number; lastTransitionTime: string } | undefined {
  return obj?.status?.conditions?.find((c: { type: string }) => c.type === type);
}
