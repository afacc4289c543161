// The node tier (test/node/README.md): a single-node Kubernetes on this machine (test/node/up.sh),
// the Herald image built from ./Dockerfile, the chart installed as docs/install.md says with
// charts/herald/values-production.yaml (only the image, the servers' addresses and the APNs
// simulator overridden), then the smoke both cluster tiers share (test/node/smoke.sh) and the
// checks only a real node can make. The node is torn down afterwards, whatever happened.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chartDir, getHelm, repoRoot, type Helm } from '../chart/helm.js';

const here = join(repoRoot, 'test/node');
const nodeDir = process.env.HERALD_NODE_DIR ?? '/var/lib/herald-node';
const kubeconfig = join(nodeDir, 'admin.kubeconfig');
const ns = 'herald';
const release = 'herald';
// The minimum the chart declares (Chart.yaml kubeVersion) and docs/install.md states.
const MIN_KUBE_MINOR = 31;

interface Run { code: number; stdout: string; stderr: string }
/** Runs a command; its stderr streams to ours (progress of the scripts), stdout is collected. */
function run(cmd: string, args: string[], opts: { input?: string; quiet?: boolean } = {}): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(cmd, args, { cwd: repoRoot, env: { ...process.env, KUBECONFIG: kubeconfig }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
      if (!opts.quiet) process.stderr.write(c);
    });
    child.once('error', fail);
    child.once('close', (code) => done({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(opts.input ?? '');
  });
}
async function must(cmd: string, args: string[], what: string): Promise<string> {
  const r = await run(cmd, args);
  if (r.code !== 0) throw new Error(`${what} failed (exit ${r.code}):\n${r.stderr.slice(-4000)}`);
  return r.stdout;
}
const kubectl = (...args: string[]) => must('kubectl', args, `kubectl ${args.join(' ')}`);

// A test process killed mid-run must not leave the node up.
let nodeUp = false;
const downNow = () => {
  if (nodeUp) spawnSync('bash', [join(here, 'down.sh')], { stdio: 'inherit' });
  nodeUp = false;
};
process.on('exit', downNow);
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => { downNow(); process.exit(130); });

describe('node tier: the chart on a real single-node Kubernetes', function () {
  let helm: Helm;
  let image = '';
  let apiBase = '';
  let simControl = '';

  before(async function () {
    this.timeout(60 * 60 * 1000); // a fresh machine builds the Go binaries first (~15 min)
    helm = await getHelm();
    nodeUp = true;
    await must('bash', [join(here, 'up.sh')], 'test/node/up.sh');
    image = readFileSync(join(nodeDir, 'image'), 'utf8').trim();
    const [repository, tag] = [image.slice(0, image.lastIndexOf(':')), image.slice(image.lastIndexOf(':') + 1)];
    // docs/install.md, "Install": the production values file, with this cluster's image and servers.
    const install = await helm.run([
      'install', release, chartDir, '-n', ns, '--create-namespace',
      '-f', join(chartDir, 'values-production.yaml'),
      '--set', `image.repository=${repository}`, '--set', `image.tag=${tag}`, '--set', 'image.pullPolicy=Never',
      '--set', 'database.url=postgres://postgres@postgresql.deps.svc:5432/herald',
      '--set', 'redis.url=redis://redis.deps.svc:6379',
      '--set', 'nats.url=nats://nats.deps.svc:4222',
      '--set', 'apnsSimulator.enabled=true',
      '--wait', '--timeout', '5m',
    ], { kubeconfig });
    if (install.code !== 0) {
      const pods = await run('kubectl', ['get', 'pods', '-A', '-o', 'wide'], { quiet: true });
      const events = await run('kubectl', ['get', 'events', '-n', ns, '--sort-by=.lastTimestamp'], { quiet: true });
      throw new Error(`helm install failed:\n${install.stderr}\n${pods.stdout}\n${events.stdout.split('\n').slice(-30).join('\n')}`);
    }
    const ip = (svc: string) => kubectl('get', 'svc', svc, '-n', ns, '-o', 'jsonpath={.spec.clusterIP}');
    apiBase = `http://${await ip(`${release}-api`)}:80`;
    simControl = `http://${await ip(`${release}-apns-sim`)}:2198`;
  });

  after(async function () {
    this.timeout(3 * 60 * 1000);
    helm?.cleanup();
    if (nodeUp) await run('bash', [join(here, 'down.sh')]);
    nodeUp = false;
  });

  it(`runs Kubernetes 1.${MIN_KUBE_MINOR} or newer, the chart's minimum`, async () => {
    const version = JSON.parse(await kubectl('version', '-o', 'json')).serverVersion;
    assert.equal(version.major, '1');
    assert.ok(Number(version.minor) >= MIN_KUBE_MINOR, `server is ${version.gitVersion}`);
    const chart = readFileSync(join(chartDir, 'Chart.yaml'), 'utf8');
    assert.match(chart, new RegExp(`kubeVersion: ">=1\\.${MIN_KUBE_MINOR}\\.0-0"`));
  });

  it('applied every migration, pg_trgm among the extensions (the requirement docs/install.md names)', async () => {
    const sql = "SELECT (SELECT count(*) FROM schema_migrations) || ' ' || (SELECT count(*) FROM pg_extension WHERE extname = 'pg_trgm')";
    const out = await kubectl('exec', '-n', ns, `deploy/${release}-api`, '--', 'node', '-e', `
      const { Client } = require('pg');
      const c = new Client({ connectionString: process.env.HERALD_DATABASE_URL });
      c.connect().then(() => c.query(${JSON.stringify(sql)})).then((r) => { process.stdout.write(Object.values(r.rows[0])[0]); return c.end(); });`);
    const [migrations, trgm] = out.trim().split(' ').map(Number);
    const files = spawnSync('ls', [join(repoRoot, 'core/store/migrations')]).stdout.toString().split('\n').filter((f) => f.endsWith('.sql'));
    assert.ok(migrations >= files.length, `schema_migrations has ${migrations} rows, the image has ${files.length} migrations`);
    assert.equal(trgm, 1);
  });

  it('passes the smoke both cluster tiers share: pods Ready, security context, App Ready with its key, a send delivered and mirrored', async function () {
    this.timeout(8 * 60 * 1000);
    const smoke = await run('bash', [join(here, 'smoke.sh'), ns, apiBase, simControl]);
    assert.equal(smoke.code, 0, `smoke failed:\n${smoke.stderr.slice(-3000)}`);
  });
});
