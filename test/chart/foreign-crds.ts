// Stand-ins for the CRDs of the chart's optional objects (Prometheus Operator, KEDA), reduced to
// what the apiserver needs to accept and validate the chart's ServiceMonitors, PrometheusRule and
// ScaledObject. Installed on a test control plane by the suites that apply or install the chart.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import type { ControlPlane } from '../kube/control-plane.js';
import { repoRoot } from './helm.js';

// File in test/chart → CRD name.
const foreignCrds: Record<string, string> = {
  'servicemonitor-crd.yaml': 'servicemonitors.monitoring.coreos.com',
  'prometheusrule-crd.yaml': 'prometheusrules.monitoring.coreos.com',
  'scaledobject-crd.yaml': 'scaledobjects.keda.sh',
};

export async function installForeignCrds(cp: ControlPlane): Promise<void> {
  for (const file of Object.keys(foreignCrds)) {
    const crd = await cp.kubectl(['apply', '-f', '-'], { input: await readFile(join(repoRoot, 'test/chart', file), 'utf8') });
    expect(crd.code, crd.stderr).to.equal(0);
  }
  const established = await cp.kubectl(['wait', '--for=condition=Established', '--timeout=60s', ...Object.values(foreignCrds).map((name) => `crd/${name}`)]);
  expect(established.code, established.stderr).to.equal(0);
}
