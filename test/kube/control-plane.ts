// A real etcd + kube-apiserver for tests, started the way controller-runtime's envtest does
// (no kubelet, no controller-manager: so no garbage collector and no default service accounts).
// See test/kube/README.md.
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { kubeBinDir } from './binaries.js';
import { waitForOk, type ClientTls } from './health.js';
import { writeKubeconfig } from './kubeconfig.js';
import { runKubectl, type KubectlResult } from './kubectl.js';
import { createPki, type ControlPlanePki } from './pki.js';
import { forgetTempDir, freePorts, removeOnExit, startProcess, type RunningProcess } from './processes.js';

export type { KubectlResult } from './kubectl.js';

export interface ControlPlane {
  /** Path of an admin kubeconfig (user admin in system:masters, namespace default). */
  kubeconfig: string;
  /** https://127.0.0.1:<port> */
  server: string;
  binDir: string;
  /** The temp dir holding certificates, etcd data and the two log files. */
  dir: string;
  kubectl(args: string[], opts?: { input?: string }): Promise<KubectlResult>;
  /** Stops kube-apiserver and starts it again on the same port with the same etcd. */
  restartApiserver(): Promise<void>;
  /** Stops both processes and removes the temp dir. Safe to call twice. */
  stop(): Promise<void>;
}

export interface ControlPlaneOptions {
  /** Apply every file in crds/ and wait for the CRDs to be Established. */
  crds?: boolean;
  /** kubectl to run; default `kubectl` from PATH. */
  kubectlCommand?: string;
}

// Set HERALD_KUBE_KEEP_DIR=1 to keep the temp dir (logs, etcd data, kubeconfig) after stop(),
// to read kube-apiserver.log after a failure.
const keepDir = process.env.HERALD_KUBE_KEEP_DIR === '1';
const crdDir = resolve(dirname(fileURLToPath(import.meta.url)), '../../crds');

export async function startControlPlane(opts: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const binDir = await kubeBinDir();
  const dir = await mkdtemp(join(tmpdir(), 'herald-kube-'));
  removeOnExit(dir);
  const started: RunningProcess[] = [];
  try {
    const pki = await createPki(dir);
    const etcd = await startEtcd(binDir, dir);
    started.push(etcd.proc);

    const [apiserverPort] = await freePorts(1);
    const server = `https://127.0.0.1:${apiserverPort}`;
    const tls = await clientTls(pki);
    const apiserverArgs = kubeApiserverArgs(dir, pki, etcd.url, apiserverPort);
    const startApiserver = async (): Promise<RunningProcess> => {
      const proc = startProcess('kube-apiserver', join(binDir, 'kube-apiserver'), apiserverArgs, join(dir, 'kube-apiserver.log'));
      try {
        await waitForApiserver(proc, server, tls);
      } catch (err) {
        await proc.stop(); // a half-started apiserver must not outlive the failed start
        throw err;
      }
      return proc;
    };
    let apiserver = await startApiserver();
    started.push(apiserver);

    const kubeconfig = join(dir, 'kubeconfig');
    await writeKubeconfig(kubeconfig, server, pki);
    const target = { kubeconfig, cacheDir: join(dir, 'kubectl-cache'), command: opts.kubectlCommand };
    const kubectl = (args: string[], o?: { input?: string }): Promise<KubectlResult> => runKubectl(target, args, o);
    if (opts.crds) await applyCrds(kubectl);

    let stopped = false;
    return {
      kubeconfig,
      server,
      binDir,
      dir,
      kubectl,
      async restartApiserver() {
        await apiserver.stop();
        apiserver = await startApiserver();
      },
      async stop() {
        if (stopped) return;
        stopped = true;
        await apiserver.stop();
        await etcd.proc.stop();
        if (keepDir) {
          forgetTempDir(dir);
          process.stderr.write(`kube tier: kept ${dir} (HERALD_KUBE_KEEP_DIR)\n`);
          return;
        }
        await rm(dir, { recursive: true, force: true });
        forgetTempDir(dir);
      },
    };
  } catch (err) {
    for (const proc of started.reverse()) await proc.stop();
    await rm(dir, { recursive: true, force: true });
    forgetTempDir(dir);
    throw err;
  }
}

async function startEtcd(binDir: string, dir: string): Promise<{ proc: RunningProcess; url: string }> {
  const [clientPort, peerPort] = await freePorts(2);
  const url = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const dataDir = join(dir, 'etcd-data');
  await mkdir(dataDir, { mode: 0o700 });
  const proc = startProcess('etcd', join(binDir, 'etcd'), [
    '--name=default',
    `--data-dir=${dataDir}`,
    `--listen-client-urls=${url}`,
    `--advertise-client-urls=${url}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=default=${peer}`,
    // Throw-away data: skipping fsync makes etcd (and so every write to the apiserver) much faster.
    '--unsafe-no-fsync=true',
    '--log-level=warn',
  ], join(dir, 'etcd.log'));
  await waitForOk(proc, `${url}/health`);
  return { proc, url };
}

function kubeApiserverArgs(dir: string, pki: ControlPlanePki, etcdUrl: string, port: number): string[] {
  return [
    `--etcd-servers=${etcdUrl}`,
    `--cert-dir=${join(dir, 'apiserver-certs')}`,
    `--tls-cert-file=${pki.servingCertFile}`,
    `--tls-private-key-file=${pki.servingKeyFile}`,
    `--client-ca-file=${pki.caFile}`,
    `--secure-port=${port}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    '--service-cluster-ip-range=10.0.0.0/24',
    '--allow-privileged=true',
    // No controller-manager runs, so nothing would create the default service accounts that
    // this plugin insists on for every pod.
    '--disable-admission-plugins=ServiceAccount',
    '--authorization-mode=RBAC',
    // Without it, open watches (informers) hold a SIGTERMed apiserver up until our 10 s SIGKILL;
    // with it, the apiserver closes them and exits in about a second, as in a rolling restart.
    '--shutdown-watch-termination-grace-period=2s',
    `--service-account-issuer=https://127.0.0.1:${port}/`,
    `--service-account-key-file=${pki.serviceAccountPubFile}`,
    `--service-account-signing-key-file=${pki.serviceAccountKeyFile}`,
  ];
}

async function clientTls(pki: ControlPlanePki): Promise<ClientTls> {
  const [ca, cert, key] = await Promise.all([pki.caFile, pki.adminCertFile, pki.adminKeyFile].map((f) => readFile(f)));
  return { ca, cert, key };
}

// /readyz covers etcd and the post-start hooks; the default namespace is created just after by
// the bootstrap controller, and tests write there, so wait for it too.
async function waitForApiserver(proc: RunningProcess, server: string, tls: ClientTls): Promise<void> {
  await waitForOk(proc, `${server}/readyz`, { tls, timeoutMs: 120_000 });
  await waitForOk(proc, `${server}/api/v1/namespaces/default`, { tls, timeoutMs: 30_000 });
}

async function applyCrds(kubectl: ControlPlane['kubectl']): Promise<void> {
  const applied = await kubectl(['apply', '-f', crdDir]);
  if (applied.code !== 0) throw new Error(`kubectl apply -f ${crdDir} failed:\n${applied.stderr}`);
  const names = applied.stdout.match(/customresourcedefinition\.apiextensions\.k8s\.io\/\S+/g) ?? [];
  const waited = await kubectl(['wait', '--for=condition=Established', '--timeout=60s', ...names]);
  if (waited.code !== 0) throw new Error(`CRDs not Established:\n${waited.stderr}`);
}
