// `make kube-up`: the Kubernetes tier's kube-apiserver and etcd (test/kube/README.md), started for
// a person to try the operator by hand: Herald's CRDs installed, an admin kubeconfig written to
// .herald/kube/kubeconfig (HERALD_KUBE_UP_KUBECONFIG to choose), and the commands to use it printed. Runs until Ctrl-C, then stops both
// and removes their data (nothing to clean up after).
import { copyFile, mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { startControlPlane } from '../test/kube/control-plane.js';

const kubeconfig = resolve(process.env.HERALD_KUBE_UP_KUBECONFIG ?? '.herald/kube/kubeconfig');
process.stderr.write('starting etcd and kube-apiserver (the first run builds them from the Go module proxy: minutes)…\n');
const cp = await startControlPlane({ crds: true });
await mkdir(dirname(kubeconfig), { recursive: true });
await copyFile(cp.kubeconfig, kubeconfig);

process.stdout.write(`
kube-apiserver ${cp.server} is up, with Herald's CRDs (App, Send). In another terminal:

  export KUBECONFIG=${kubeconfig}
  kubectl get crds
  HERALD_KUBECONFIG=$KUBECONFIG node bin/herald.js controller     # the operator, against make services' databases

then apply an App as docs/operator.md shows (no kubelet runs pods here: run Herald's roles
with node bin/herald.js). Stop with Ctrl-C.
`);

const stop = async () => {
  await cp.stop();
  process.exit(0);
};
process.once('SIGINT', () => void stop());
process.once('SIGTERM', () => void stop());
