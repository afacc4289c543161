// What `helm install` prints afterwards (templates/NOTES.txt), filled in from the values. Helm
// renders NOTES only when installing, and even a client-side dry run asks a cluster for its
// version first (and maps every kind): so a real kube-apiserver answers.
import { join } from 'node:path';
import { expect } from 'chai';
import { startControlPlane, type ControlPlane } from '../kube/control-plane.js';
import { chartDir, valuesDir, useHelm } from './helm.js';
import { installForeignCrds } from './foreign-crds.js';

const NS = 'herald';
const minimal = join(valuesDir, 'minimal.yaml');
const operations = join(valuesDir, 'operations.yaml');
const full = join(valuesDir, 'full.yaml');

describe('charts/herald: NOTES.txt after helm install', function () {
  const helm = useHelm();
  let cp: ControlPlane;
  before(async function () {
    this.timeout(60 * 60 * 1000); // the first run of the kube tier builds kube-apiserver and etcd
    cp = await startControlPlane();
    await installForeignCrds(cp); // helm maps every rendered kind, even in a dry run
  });
  after(async () => {
    await cp?.stop();
  });

  const notes = async (...args: string[]) => {
    const r = await helm().run(['install', 'herald', chartDir, '-n', NS, '--dry-run=client', ...args], { kubeconfig: cp.kubeconfig });
    expect(r.code, r.stderr).to.equal(0);
    return r.stdout.slice(r.stdout.indexOf('NOTES:'));
  };

  it('tells how to create the first App and read its key, send a push, watch sends and open the dashboard', async () => {
    const text = await notes('-f', minimal);
    expect(text).to.contain('kubectl port-forward -n herald svc/herald-api 8080:80');
    expect(text).to.contain('kind: App');
    expect(text).to.contain("kubectl get app shop -n herald -o jsonpath='{.status.appId}'");
    expect(text).to.contain("jsonpath='{.status.keys[0].secretName}'");
    expect(text).to.contain("-o jsonpath='{.data.apiKey}' | base64 -d");
    expect(text).to.contain('curl -s "$HERALD/api/v1/notifications" -H "Authorization: Key $KEY"');
    expect(text).to.contain('kubectl get sends -n herald -w');
    // How devices register, with a call that works as printed.
    expect(text).to.contain('curl -s "$HERALD/api/v1/apps/$APP_ID/subscriptions"');
    expect(text).to.contain('"token": "\'$(openssl rand -hex 32)\'"');
    expect(text).to.contain('$HERALD/dashboard/');
  });

  it('uses the ingress host and the watched namespace when there are', async () => {
    const text = await notes('-f', full, '--set', 'sender.autoscaling.enabled=true');
    expect(text).to.contain('export HERALD=https://push.example.com');
    expect(text).to.contain('kubectl get sends -n apps -w');
    expect(text).not.to.contain('port-forward');
  });

  it('points at the KEDA ScaledObject, the alerts and the Grafana dashboard when on', async () => {
    const text = await notes('-f', operations);
    expect(text).to.contain('kubectl get scaledobject -n herald herald-sender');
    expect(text).to.contain('PrometheusRule herald');
    expect(text).to.contain('ConfigMap herald-dashboard');
  });
});
