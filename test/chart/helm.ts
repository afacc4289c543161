// The helm CLI for the chart tests: built once from the Go module proxy by tools/helm/build.sh
// and cached outside the repo. Helm's own cache/config/data dirs go to a temp dir so the tests
// never read or write the user's ~/.config/helm.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const chartDir = join(repoRoot, 'charts/herald');
export const valuesDir = join(repoRoot, 'test/chart/values');

export interface HelmResult {
  stdout: string;
  stderr: string;
  code: number;
}

export interface Helm {
  bin: string;
  run(args: string[], opts?: { kubeconfig?: string }): Promise<HelmResult>;
  /** `helm template` of the chart; throws with helm's message when it fails. */
  template(args: string[]): Promise<Manifest[]>;
  cleanup(): void;
}

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: any;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  [key: string]: any;
}

/** Builds helm if it is not cached yet (minutes the first time) and returns a runner. */
export async function getHelm(): Promise<Helm> {
  const { stdout } = await promisify(execFile)('bash', [join(repoRoot, 'tools/helm/build.sh')], { maxBuffer: 16 << 20 });
  const bin = stdout.trim().split('\n').pop() ?? '';
  const home = mkdtempSync(join(tmpdir(), 'herald-helm-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HELM_CACHE_HOME: join(home, 'cache'),
    HELM_CONFIG_HOME: join(home, 'config'),
    HELM_DATA_HOME: join(home, 'data'),
  };
  delete env.KUBECONFIG;
  const run = (args: string[], opts: { kubeconfig?: string } = {}): Promise<HelmResult> =>
    new Promise((done, fail) => {
      const child = spawn(bin, opts.kubeconfig ? ['--kubeconfig', opts.kubeconfig, ...args] : args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
      child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
      child.once('error', fail);
      child.once('close', (code) => done({ stdout: out, stderr: err, code: code ?? -1 }));
    });
  return {
    bin,
    run,
    async template(args) {
      const result = await run(['template', 'herald', chartDir, ...args]);
      if (result.code !== 0) throw new Error(`helm template failed:\n${result.stderr}`);
      return parseManifests(result.stdout);
    },
    cleanup: () => rmSync(home, { recursive: true, force: true }),
  };
}

export function parseManifests(text: string): Manifest[] {
  return parseAllDocuments(text)
    .map((doc) => {
      if (doc.errors.length) throw new Error(`rendered YAML does not parse: ${doc.errors[0].message}`);
      return doc.toJS() as Manifest | null;
    })
    .filter((m): m is Manifest => m !== null);
}

export function find(manifests: Manifest[], kind: string, name: string): Manifest {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in: ${manifests.map((m) => `${m.kind}/${m.metadata.name}`).join(', ')}`);
  return found;
}

/** Registers the suite's hooks that build (or reuse) helm and clean up after it; call the getter in tests. */
export function useHelm(): () => Helm {
  let helm: Helm | undefined;
  before(async function () {
    this.timeout(30 * 60 * 1000); // the first run builds helm (about 4 minutes)
    helm = await getHelm();
  });
  after(() => helm?.cleanup());
  return () => {
    if (!helm) throw new Error('helm is not ready (used outside a test?)');
    return helm;
  };
}
