// The node tier's ways of talking to its cluster (node.test.ts): commands with the tier's
// kubeconfig, the release's pods, and what a pod that restarted said before it went.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '../chart/helm.js';
import { waitFor } from '../support/wait.js';

export const nodeDir = process.env.HERALD_NODE_DIR ?? '/var/lib/herald-node';
export const kubeconfig = join(nodeDir, 'admin.kubeconfig');
export const ns = 'herald';
export const release = 'herald';

export interface Run { code: number; stdout: string; stderr: string }

/** Runs a command; its stderr streams to ours (progress of the scripts), stdout is collected. */
export function run(cmd: string, args: string[], opts: { input?: string; quiet?: boolean } = {}): Promise<Run> {
  return new Promise((done, fail) => {
    const env = { ...process.env, KUBECONFIG: kubeconfig, HERALD_NODE_OWNER: String(process.pid) };
    const child = spawn(cmd, args, { cwd: repoRoot, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
      if (!opts.quiet) process.stderr.write(c);
    });
    child.once('error', fail);
    child.once('close', (code) => done({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(opts.input ?? '');
  });
}

export async function must(cmd: string, args: string[], what: string): Promise<string> {
  const r = await run(cmd, args);
  if (r.code !== 0) throw new Error(`${what} failed (exit ${r.code}):\n${r.stderr.slice(-4000)}`);
  return r.stdout;
}

export const kubectl = (...args: string[]) => must('kubectl', args, `kubectl ${args.join(' ')}`);

/** Each pod of the release and its containers' restarts, summed. */
export async function restarts(): Promise<Record<string, number>> {
  const pods = JSON.parse(await kubectl('get', 'pods', '-n', ns, '-o', 'json')).items;
  return Object.fromEntries(pods.map((p: any) => [p.metadata.name, (p.status.containerStatuses ?? []).reduce((n: number, c: any) => n + c.restartCount, 0)]));
}

/** The pods of one component that are not going away, with their addresses. */
export async function podsOf(component: string): Promise<{ name: string; ip: string }[]> {
  return JSON.parse(await kubectl('get', 'pods', '-n', ns, '-l', `app.kubernetes.io/component=${component}`, '-o', 'json')).items
    .filter((p: any) => !p.metadata.deletionTimestamp)
    .map((p: any) => ({ name: p.metadata.name, ip: p.status.podIP }));
}

/**
 * Why pods restarted between two `restarts()` readings: for each pod whose count changed, when it
 * was created (a pod younger than the check started during it), how its last container ended
 * (reason, exit code) and the last lines that container logged, where a crashed process says what
 * killed it (cli/runtime.ts logs the escaped error before it exits; a start-up error is one line).
 */
export async function whyRestarted(before: Record<string, number>, after: Record<string, number>, lines = 80): Promise<string> {
  const changed = Object.keys(after).filter((pod) => (before[pod] ?? 0) !== after[pod]);
  let out = '';
  for (const pod of changed) {
    const ended = await run('kubectl', ['get', 'pod', pod, '-n', ns, '-o', 'jsonpath=created {.metadata.creationTimestamp}{"\\n"}{range .status.containerStatuses[*]}{.name}: {.lastState.terminated.reason} exit {.lastState.terminated.exitCode}{"\\n"}{end}'], { quiet: true });
    const logs = await run('kubectl', ['logs', '-n', ns, pod, '--all-containers', '--previous', `--tail=${lines}`], { quiet: true });
    out += `\n--- ${pod}: restarts ${before[pod] ?? 0} -> ${after[pod]}\n${ended.stdout}--- kubectl logs --previous --tail=${lines}\n${logs.stdout || logs.stderr}`;
  }
  return out;
}

const DEPLOYMENTS = ['api', 'sender', 'controller', 'apns-sim'];

/** The last `tail` lines of each deployment's logs (one pod each), and of its previous containers when asked. */
export async function deploymentLogs(tail: number, opts: { previous?: boolean } = {}): Promise<string> {
  let logs = '';
  for (const d of DEPLOYMENTS) {
    for (const previous of opts.previous ? [[], ['--previous']] : [[]]) {
      const out = await run('kubectl', ['logs', '-n', ns, `deploy/${release}-${d}`, `--tail=${tail}`, ...previous], { quiet: true });
      if (out.stdout) logs += `--- logs deploy/${release}-${d} ${previous.join('')}\n${out.stdout}`;
    }
  }
  return logs;
}

/**
 * Waits until the release keeps the pods it has: every Deployment with all its replicas Ready and
 * updated, and none below its autoscaler's minimum. `helm install --wait` returns with one sender
 * (the chart leaves the Deployment's replicas to the HPA), and the HPA adds the second at its next
 * sync, up to 15 s later: a check that stops PostgreSQL then meets a pod starting, which exits 2 by
 * design (docs/operations.md "Start-up errors") and is restarted.
 */
export async function releaseSteady(timeoutMs = 180_000): Promise<void> {
  let unsteady: string[] = [];
  await waitFor('every Deployment of the release at its replicas (and its autoscaler\'s minimum), all Ready', async () => {
    const minimum = new Map<string, number>(JSON.parse(await kubectl('get', 'hpa', '-n', ns, '-o', 'json')).items
      .map((h: any) => [h.spec.scaleTargetRef.name, h.spec.minReplicas ?? 1]));
    unsteady = JSON.parse(await kubectl('get', 'deploy', '-n', ns, '-o', 'json')).items
      .filter((d: any) => {
        const want = Math.max(d.spec.replicas ?? 1, minimum.get(d.metadata.name) ?? 0);
        return [d.spec.replicas, d.status.replicas, d.status.updatedReplicas, d.status.readyReplicas].some((n) => (n ?? 0) !== want);
      })
      .map((d: any) => `${d.metadata.name}: ${d.status.readyReplicas ?? 0} of ${d.spec.replicas} Ready`);
    return unsteady.length === 0;
  }, timeoutMs, 1000).catch((error: Error) => {
    throw new Error(`${error.message}; ${unsteady.join(', ')}`);
  });
}
