// The rendered chart on a real kube-apiserver: server-side dry runs and a real helm install/upgrade.
import { join } from 'node:path';
import { expect } from 'chai';
import { startControlPlane, type ControlPlane } from '../kube/control-plane.js';
import { chartDir, repoRoot, valuesDir, useHelm } from './helm.js';
import { installForeignCrds } from './foreign-crds.js';

const minimal = join(valuesDir, 'minimal.yaml');
const NS = 'herald';

describe('charts/herald on a real kube-apiserver', function () {
  const helm = useHelm();

  let cp: ControlPlane;

  before(async function () {
    this.timeout(60 * 60 * 1000); // the first run of the kube tier builds kube-apiserver and etcd
    cp = await startControlPlane({ crds: true });
    await installForeignCrds(cp);
    // NS for the release; apps is full.yaml's controller.watchNamespace (a Role there).
    for (const name of [NS, 'apps']) {
      const ns = await cp.kubectl(['create', 'namespace', name]);
      expect(ns.code, ns.stderr).to.equal(0);
    }
  });
  after(async () => {
    await cp?.stop();
  });

  for (const file of ['test/chart/values/minimal.yaml', 'test/chart/values/full.yaml', 'test/chart/values/operations.yaml', 'test/kind/values.yaml']) {
    it(`accepts every object rendered from ${file} (kubectl apply --dry-run=server)`, async function () {
      this.timeout(120_000);
      const rendered = await helm().run(['template', 'herald', chartDir, '-n', NS, '--include-crds', '-f', join(repoRoot, file)]);
      expect(rendered.code, rendered.stderr).to.equal(0);
      // No -n: every namespaced object the chart renders names its namespace.
      const applied = await cp.kubectl(['apply', '--dry-run=server', '-f', '-'], { input: rendered.stdout });
      expect(applied.code, applied.stderr).to.equal(0);
      const count = rendered.stdout.split(/^---$/m).filter((doc) => /^kind:/m.test(doc)).length;
      expect(applied.stdout.trim().split('\n'), applied.stdout).to.have.length(count);
    });
  }

  it('installs and upgrades with helm itself, keeping the simulator certificates across the upgrade', async function () {
    this.timeout(180_000);
    // --no-hooks: the migrate Job would never finish here (no kubelet runs pods).
    const common = ['herald', chartDir, '-n', NS, '-f', minimal, '--set', 'apnsSimulator.enabled=true', '--no-hooks'];
    const installed = await helm().run(['install', ...common], { kubeconfig: cp.kubeconfig });
    expect(installed.code, installed.stderr).to.equal(0);
    const certOf = async () => {
      const r = await cp.kubectl(['get', 'secret', '-n', NS, 'herald-apns-sim-tls', '-o', 'jsonpath={.data.apns-sim-ca\\.pem}']);
      expect(r.code, r.stderr).to.equal(0);
      return r.stdout;
    };
    const first = await certOf();
    expect(first).to.have.length.above(100);
    const upgraded = await helm().run(['upgrade', ...common, '--set', 'logLevel=debug'], { kubeconfig: cp.kubeconfig });
    expect(upgraded.code, upgraded.stderr).to.equal(0);
    expect(await certOf()).to.equal(first);
    const cm = await cp.kubectl(['get', 'configmap', '-n', NS, 'herald-config', '-o', 'jsonpath={.data.HERALD_LOG_LEVEL}']);
    expect(cm.stdout).to.equal('debug');
    const uninstalled = await helm().run(['uninstall', 'herald', '-n', NS, '--no-hooks'], { kubeconfig: cp.kubeconfig });
    expect(uninstalled.code, uninstalled.stderr).to.equal(0);
  });
});
