// Runs the installed kubectl (1.32, within the one-minor skew of our v1.33 apiserver) against
// one control plane. Never throws on a non-zero exit: tests assert on refusals.
import { spawn } from 'node:child_process';

export interface KubectlResult {
  stdout: string;
  stderr: string;
  code: number;
}

export interface KubectlTarget {
  kubeconfig: string;
  /** kubectl's discovery cache, kept per control plane instead of in ~/.kube/cache. */
  cacheDir: string;
  command?: string;
}

export function runKubectl(target: KubectlTarget, args: string[], opts: { input?: string } = {}): Promise<KubectlResult> {
  const fullArgs = ['--kubeconfig', target.kubeconfig, '--cache-dir', target.cacheDir, ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(target.command ?? 'kubectl', fullArgs, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.once('error', reject);
    child.once('close', (code) => resolve({ stdout, stderr, code: code ?? -1 }));
    child.stdin.end(opts.input ?? '');
  });
}
