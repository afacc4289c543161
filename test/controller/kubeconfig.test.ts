// `herald controller` finds its cluster as kube tools do (controller/kube/config.ts): KUBECONFIG
// alone, a KUBECONFIG list of files merged, ~/.kube/config, HERALD_KUBECONFIG over all; and a
// wrong file, a config without a cluster or an unreachable server is one line and exit code 2.
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { parse, stringify } from 'yaml';
import { useTestEnv } from '../env/index.js';
import { freePorts } from '../kube/processes.js';
import { checkKubeReachable, loadKubeConfigFrom } from '../../controller/kube/config.js';
import { startHerald, type HeraldProcess } from '../support/processes.js';
import { ok, useControlPlane, waitFor } from './harness.js';

describe('herald controller: where it finds its Kubernetes configuration', function () {
  this.timeout(120_000);
  const env = useTestEnv();
  const kube = useControlPlane();
  let dir: string;
  let emptyHome: string;
  let n = 0;
  const procs: HeraldProcess[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'herald-kubeconfig-'));
    emptyHome = join(dir, 'empty-home');
    await mkdir(emptyHome);
  });
  after(async () => {
    for (const p of procs) await p.stop('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  /** The controller with exactly these variables besides the test env (no HERALD_KUBECONFIG unless given). */
  const run = async (vars: Record<string, string>) => {
    const lease = `kubeconfig-${++n}`;
    const proc = await startHerald('controller', env.childEnv({
      HOME: emptyHome,
      HERALD_POD_NAME: lease,
      HERALD_LEASE_NAMESPACE: 'default',
      HERALD_LEASE_NAME: lease,
      HERALD_METRICS_PORT: '0',
      ...vars,
    }), { waitForPort: false });
    procs.push(proc);
    return { proc, lease };
  };
  const expectReady = async (vars: Record<string, string>) => {
    const { proc, lease } = await run(vars);
    await waitFor('controller ready', async () => {
      if (proc.child.exitCode !== null) throw new Error(`exited ${proc.child.exitCode}: ${proc.output()}`);
      return proc.output().includes('controller ready');
    }, 60_000);
    // It really talks to this apiserver: it holds its Lease there.
    await waitFor('the Lease held', async () =>
      ok(await kube.kubectl(['get', 'lease', lease, '-o', 'jsonpath={.spec.holderIdentity}'])).trim() === lease || undefined, 30_000);
    await proc.stop('SIGTERM');
  };
  const expectRefused = async (vars: Record<string, string>, says: string[]) => {
    const { proc } = await run(vars);
    const code = await proc.exited;
    const lines = proc.output().trim().split('\n');
    expect(code, proc.output()).to.equal(2);
    expect(lines, proc.output()).to.have.length(1);
    expect(lines[0]).to.match(/^herald: /);
    for (const s of says) expect(lines[0]).to.contain(s);
  };
  const writeConfig = async (name: string, config: unknown) => {
    const path = join(dir, name);
    await writeFile(path, typeof config === 'string' ? config : stringify(config), { mode: 0o600 });
    return path;
  };
  const adminConfig = async () => parse(await readFile(kube.cp.kubeconfig, 'utf8'));

  it('runs with only KUBECONFIG set (one file)', async () => {
    await expectReady({ KUBECONFIG: kube.cp.kubeconfig });
  });

  it('merges a KUBECONFIG list of files as kubectl does (the first file names the context)', async () => {
    const { clusters, users, contexts, ...rest } = await adminConfig();
    const first = await writeConfig('contexts.yaml', { ...rest, clusters: [], users: [], contexts });
    // A second file naming another current-context: the first file's wins.
    const second = await writeConfig('clusters.yaml', { apiVersion: 'v1', kind: 'Config', clusters, users, contexts: [], 'current-context': 'elsewhere' });
    await expectReady({ KUBECONFIG: `${first}:${second}` });
  });

  it('reads ~/.kube/config when nothing else is set', async () => {
    const home = join(dir, 'home');
    await mkdir(join(home, '.kube'), { recursive: true });
    await writeFile(join(home, '.kube', 'config'), await readFile(kube.cp.kubeconfig));
    await expectReady({ HOME: home });
  });

  it('prefers HERALD_KUBECONFIG to KUBECONFIG', async () => {
    await expectReady({ HERALD_KUBECONFIG: kube.cp.kubeconfig, KUBECONFIG: join(dir, 'missing.yaml') });
  });

  it("uses the pod's ServiceAccount when no variable names a file, before ~/.kube/config, after KUBECONFIG", async () => {
    // A pod's view, under a temp root: the token and CA the kubelet mounts, the service address
    // the kubelet puts in KUBERNETES_SERVICE_HOST/_PORT (read by the library, so set here).
    const podRoot = join(dir, 'pod');
    const saDir = join(podRoot, 'var/run/secrets/kubernetes.io/serviceaccount');
    await mkdir(saDir, { recursive: true });
    ok(await kube.kubectl(['create', 'serviceaccount', 'herald-pod']));
    await writeFile(join(saDir, 'token'), ok(await kube.kubectl(['create', 'token', 'herald-pod'])).trim());
    const admin = await adminConfig();
    await writeFile(join(saDir, 'ca.crt'), Buffer.from(admin.clusters[0].cluster['certificate-authority-data'], 'base64'));
    const { hostname, port } = new URL(kube.cp.server);
    const saved = { host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT, kubeconfig: process.env.KUBECONFIG };
    process.env.KUBERNETES_SERVICE_HOST = hostname;
    process.env.KUBERNETES_SERVICE_PORT = port;
    try {
      const home = join(dir, 'home-unreachable');
      const unreachable = await adminConfig();
      unreachable.clusters[0].cluster.server = 'https://127.0.0.1:1';
      await mkdir(join(home, '.kube'), { recursive: true });
      await writeFile(join(home, '.kube', 'config'), stringify(unreachable));

      const inCluster = loadKubeConfigFrom({ serviceHost: hostname, home }, podRoot);
      expect(inCluster.source).to.equal('in-cluster ServiceAccount');
      expect(inCluster.server).to.equal(kube.cp.server);
      expect(await checkKubeReachable(inCluster)).to.match(/^v1\./);
      expect(inCluster.kc.getCurrentUser()?.name).to.equal('inClusterUser');

      expect(loadKubeConfigFrom({ serviceHost: hostname, home }, join(dir, 'not-a-pod')).source).to.equal(join(home, '.kube', 'config'));
      // KUBECONFIG set in a pod wins (controller-runtime's order): the process was told explicitly.
      // (The library reads the variable itself, as it will in the process.)
      process.env.KUBECONFIG = kube.cp.kubeconfig;
      const told = loadKubeConfigFrom({ kubeconfig: kube.cp.kubeconfig, serviceHost: hostname, home }, podRoot);
      expect(told.source).to.equal(`KUBECONFIG=${kube.cp.kubeconfig}`);
      expect(told.kc.getCurrentUser()?.name).to.equal('admin');
    } finally {
      for (const [k, v] of [['KUBERNETES_SERVICE_HOST', saved.host], ['KUBERNETES_SERVICE_PORT', saved.port], ['KUBECONFIG', saved.kubeconfig]] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it('refuses a KUBECONFIG file that does not exist, naming it', async () => {
    const missing = join(dir, 'missing.yaml');
    await expectRefused({ KUBECONFIG: `${kube.cp.kubeconfig}:${missing}` }, ['cannot read the Kubernetes configuration from KUBECONFIG=', missing]);
  });

  it('refuses a file that is not a kubeconfig (no cluster for its context)', async () => {
    const wrong = await writeConfig('wrong.yaml', 'just: some yaml\n');
    await expectRefused({ KUBECONFIG: wrong }, [`KUBECONFIG=${wrong}`, 'has no cluster server']);
  });

  it('refuses an unreachable server at start instead of retrying forever', async () => {
    const [port] = await freePorts(1); // nothing listens there
    const config = await adminConfig();
    config.clusters[0].cluster.server = `https://127.0.0.1:${port}`;
    const unreachable = await writeConfig('unreachable.yaml', config);
    await expectRefused({ KUBECONFIG: unreachable }, [`cannot reach the Kubernetes API at https://127.0.0.1:${port}`, `KUBECONFIG=${unreachable}`, 'ECONNREFUSED']);
  });

  it('refuses credentials the server does not accept', async () => {
    const config = await adminConfig();
    config.users[0].user = { token: 'not-a-valid-token' };
    const bad = await writeConfig('bad-user.yaml', config);
    await expectRefused({ KUBECONFIG: bad }, ['cannot reach the Kubernetes API', 'HTTP 401: Unauthorized']);
  });

  it('says what to set when there is no configuration at all', async () => {
    await expectRefused({}, ['no Kubernetes configuration: set KUBECONFIG']);
  });
});
