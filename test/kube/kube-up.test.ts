// `make kube-up` (scripts/kube-up.ts): a person's local apiserver. It prints the KUBECONFIG to
// use, kubectl reaches Herald's CRDs with it, and Ctrl-C stops it cleanly.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';

describe('make kube-up', function () {
  this.timeout(120_000);

  it('prints the KUBECONFIG to use; kubectl sees the App CRD with it; Ctrl-C stops it', async () => {
    const chosen = join(mkdtempSync(join(tmpdir(), 'herald-kube-up-')), 'kubeconfig');
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/kube-up.ts'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HERALD_KUBE_UP_KUBECONFIG: chosen } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      const kubeconfig = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no KUBECONFIG printed:\n${out}`)), 100_000);
        child.stdout.on('data', () => {
          const m = /export KUBECONFIG=(\S+)/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]);
          }
        });
        void exited.then((code) => reject(new Error(`kube-up exited ${code}:\n${out}`)));
      });
      expect(kubeconfig).to.equal(chosen);
      const { stdout } = await promisify(execFile)('kubectl', ['--kubeconfig', kubeconfig, 'get', 'crd', 'apps.herald.dev', '-o', 'jsonpath={.spec.names.kind}']);
      expect(stdout).to.equal('App');
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).to.equal(0);
  });
});
