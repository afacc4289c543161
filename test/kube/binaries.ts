// Finds kube-apiserver and etcd by running build.sh, which builds them the first time (many
// minutes) and afterwards only prints the cached bin dir. Its progress goes to our stderr so a
// long first build is visible in the test output.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const buildScript = join(dirname(fileURLToPath(import.meta.url)), 'build.sh');

let pending: Promise<string> | undefined;

/** The bin dir holding kube-apiserver and etcd; built once per process at most. */
export function kubeBinDir(): Promise<string> {
  pending ??= runBuild().catch((err) => {
    pending = undefined; // let a later caller retry rather than cache the failure
    throw err;
  });
  return pending;
}

function runBuild(): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [buildScript], { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.once('error', reject);
    child.once('exit', (code) => {
      const binDir = stdout.trimEnd().split('\n').pop() ?? '';
      if (code === 0 && binDir) resolve(binDir);
      else reject(new Error(`${buildScript} failed (exit ${code}); see its output above`));
    });
  });
}
