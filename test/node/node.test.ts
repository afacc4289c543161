// The node tier (test/node/README.md): a single-node Kubernetes on this machine (test/node/up.sh),
// the Herald image built from ./Dockerfile, the chart installed as docs/install.md says with
// charts/herald/values-production.yaml (only the image, the servers' addresses and the APNs
// simulator overridden), then the smoke both cluster tiers share (test/node/smoke.sh) and the
// checks only a real node can make. The node is torn down afterwards, whatever happened.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { chartDir, getHelm, repoRoot, type Helm } from '../chart/helm.js';
import { waitFor } from '../support/wait.js';
import { deploymentLogs, kubeconfig, kubectl, must, nodeDir, ns, podsOf, release, releaseSteady, restarts, run, whyRestarted, type Run } from './cluster.js';

const here = join(repoRoot, 'test/node');
// The minimum the chart declares (Chart.yaml kubeVersion) and docs/install.md states.
const MIN_KUBE_MINOR = 31;

// A test process killed mid-run must not leave the node up.
let nodeUp = false;
const downNow = () => {
  if (nodeUp) spawnSync('bash', [join(here, 'down.sh')], { stdio: 'inherit' });
  nodeUp = false;
};
process.on('exit', downNow);
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => { downNow(); process.exit(130); });

/** docs/install.md, "Install": the production values file, with this cluster's image and servers. */
function releaseArgs(image: string): string[] {
  const at = image.lastIndexOf(':');
  return [
    release, chartDir, '-n', ns,
    '-f', join(chartDir, 'values-production.yaml'),
    '--set', `image.repository=${image.slice(0, at)}`, '--set', `image.tag=${image.slice(at + 1)}`, '--set', 'image.pullPolicy=Never',
    // The production values assume PgBouncer in transaction mode in front of PostgreSQL.
    '--set', 'database.url=postgres://postgres@pgbouncer.deps.svc:6432/herald',
    '--set', 'database.sessionUrl=postgres://postgres@postgresql.deps.svc:5432/herald',
    '--set', 'redis.url=redis://redis.deps.svc:6379',
    '--set', 'nats.url=nats://nats.deps.svc:4222',
    '--set', 'apnsSimulator.enabled=true',
    '--wait', '--timeout', '3m',
  ];
}

describe('node tier: the chart on a real single-node Kubernetes', function () {
  let helm: Helm;
  let image = '';
  let apiBase = '';
  let simControl = '';

  let machineBefore = '';

  before(async function () {
    this.timeout(60 * 60 * 1000); // a fresh machine builds the Go binaries first (~15 min)
    helm = await getHelm();
    machineBefore = await must('bash', [join(here, 'leftovers.sh')], 'test/node/leftovers.sh');
    nodeUp = true;
    await must('bash', [join(here, 'up.sh')], 'test/node/up.sh');
    image = readFileSync(join(nodeDir, 'image'), 'utf8').trim();
    // docs/install.md, "Install": the production values file, with this cluster's image and servers.
    const install = await helm.run(['install', ...releaseArgs(image), '--create-namespace'], { kubeconfig });
    if (install.code !== 0) {
      const pods = await run('kubectl', ['get', 'pods', '-A', '-o', 'wide'], { quiet: true });
      const events = await run('kubectl', ['get', 'events', '-n', ns, '--sort-by=.lastTimestamp'], { quiet: true });
      const logs = await deploymentLogs(15, { previous: true });
      throw new Error(`helm install failed:\n${install.stderr}\n${pods.stdout}\n${events.stdout.split('\n').slice(-30).join('\n')}\n${logs}`);
    }
    const ip = (svc: string) => kubectl('get', 'svc', svc, '-n', ns, '-o', 'jsonpath={.spec.clusterIP}');
    apiBase = `http://${await ip(`${release}-api`)}:80`;
    simControl = `http://${await ip(`${release}-apns-sim`)}:2198`;
  });

  // A failed check prints what the cluster looked like before the node goes away.
  afterEach(async function () {
    if (this.currentTest?.state !== 'failed' || !nodeUp) return;
    this.timeout(60_000);
    process.stderr.write((await run('kubectl', ['get', 'pods', '-A', '-o', 'wide'], { quiet: true })).stdout);
    process.stderr.write(await deploymentLogs(40));
  });

  after(async function () {
    this.timeout(3 * 60 * 1000);
    helm?.cleanup();
    if (nodeUp) await run('bash', [join(here, 'down.sh')]);
    nodeUp = false;
    // Nothing left behind: links, iptables chains, mounts, directories, cgroups, sysctls, processes.
    if (machineBefore) assert.equal(await must('bash', [join(here, 'leftovers.sh')], 'test/node/leftovers.sh'), machineBefore);
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

  describe('failures a cluster sees', function () {
    this.timeout(5 * 60 * 1000);
    let appId = '';
    let key = '';
    const api = async (method: string, path: string, body?: unknown): Promise<any> => {
      // A Service can refuse for a second while kube-proxy syncs its endpoints: a connection that
      // fails is tried again; an answer, whatever its status, is final.
      const res = await waitFor(`${method} ${path} answered by the api's Service`, () => fetch(apiBase + path, {
        method,
        headers: { Authorization: `Key ${key}`, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(20_000),
      }), 10_000, 1000);
      const text = await res.text();
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
      return JSON.parse(text);
    };
    /** Polls the REST stats of send `id` until `done` holds; a timeout says the last stats read, an error answer fails at once. */
    const statsUntil = async (id: number, what: string, done: (stats: any) => boolean, seconds: number, everyMs = 1000): Promise<any> => {
      let stats: any;
      let refused: unknown;
      const reached = await waitFor(`send ${id} ${what}`, async () => {
        stats = await api('GET', `/api/v1/notifications/${id}`).catch((error) => (refused = error));
        return refused !== undefined || done(stats);
      }, seconds * 1000, everyMs).catch((error: Error) => {
        throw new Error(`${error.message}; last stats: ${JSON.stringify(stats)}`);
      });
      if (refused !== undefined) throw refused;
      return reached && stats;
    };
    const send = (extra: Record<string, unknown> = {}) =>
      api('POST', '/api/v1/notifications', { app_id: appId, contents: { en: 'node tier' }, included_segments: ['Subscribed Users'], ...extra });
    const finished = (id: number, seconds: number): Promise<any> =>
      statsUntil(id, 'handled (approved or draft)', (stats) => stats.status === 'approved' || stats.status === 'draft', seconds);

    before(async () => {
      appId = (await kubectl('get', 'app.herald.dev/smoke', '-n', ns, '-o', 'jsonpath={.spec.appId}')).trim();
      const secret = (await kubectl('get', 'app.herald.dev/smoke', '-n', ns, '-o', 'jsonpath={.status.keys[?(@.name=="smoke")].secretName}')).trim();
      key = Buffer.from(await kubectl('get', 'secret', secret, '-n', ns, '-o', 'jsonpath={.data.apiKey}'), 'base64').toString();
      assert.ok(appId && key, 'the smoke App and its key');
      // Each fault starts on the pods the release keeps, none of them still starting.
      await releaseSteady();
    });

    it('PostgreSQL stopped for 20 s: /readyz unready then ready again, no pod restarts, a send afterwards delivered', async () => {
      const before = await restarts();
      const apis = await podsOf('api');
      const readyz = async (ip: string) => (await fetch(`http://${ip}:8080/readyz`, { signal: AbortSignal.timeout(5000) }).catch(() => undefined))?.status;
      const readyzAnswers = (pod: { name: string; ip: string }, status: number, what: string, ms: number) =>
        waitFor(`${pod.name} /readyz ${status} ${what}`, async () => (await readyz(pod.ip)) === status, ms, 500);
      await must('bash', [join(here, 'postgres.sh'), 'stop'], 'stopping PostgreSQL');
      const stoppedAt = Date.now();
      try {
        for (const pod of apis) await readyzAnswers(pod, 503, 'with PostgreSQL down', 15_000);
        await sleep(Math.max(0, 20_000 - (Date.now() - stoppedAt)));
      } finally {
        await must('bash', [join(here, 'postgres.sh'), 'start'], 'starting PostgreSQL');
      }
      for (const pod of apis) await readyzAnswers(pod, 200, 'after PostgreSQL came back', 60_000);
      const stats = await finished((await send()).id, 60);
      assert.equal(stats.sent, 3, JSON.stringify(stats));
      const after = await restarts();
      assert.deepEqual(after, before, `restart counts${await whyRestarted(before, after)}`);
    });

    describe('during a 10,000-device send', () => {
      const audience = 10_003; // the smoke's three devices and 10,000 imported
      // 40,000 a minute: the send lasts about 15 s, long enough to break things during it.
      const throttled = { throttle_rate_per_minute: 40_000 };
      const sendObject = async (id: number): Promise<any> =>
        JSON.parse(await kubectl('get', 'sends.herald.dev', '-n', ns, '-l', 'herald.dev/app=smoke', '-o', 'json')).items
          .find((o: any) => String(o.status?.id ?? o.metadata.annotations?.['herald.dev/send-id'] ?? '') === String(id) || o.metadata.name === `send-${id}`);
      const progress = (id: number, atLeast: number, seconds: number): Promise<any> =>
        statsUntil(id, `sent >= ${atLeast}`, (stats) => stats.sent >= atLeast, seconds, 500);

      before(async function () {
        this.timeout(3 * 60 * 1000);
        const lines: string[] = [];
        for (let i = 0; i < 10_000; i++) lines.push(JSON.stringify({ token: (0x1000 + i).toString(16).padStart(64, 'a'), language: 'en' }));
        let imported: Run | undefined;
        for (const app of [`${ns}/smoke`, 'smoke']) {
          imported = await run('kubectl', ['exec', '-i', '-n', ns, `deploy/${release}-api`, '--', 'node', 'bin/herald.js', 'import', '--app', app, '/dev/stdin'], { input: lines.join('\n') + '\n', quiet: true });
          if (imported.code === 0) break;
        }
        assert.equal(imported?.code, 0, `herald import: ${imported?.stderr}`);
        assert.match(imported!.stdout, /imported 10000 subscriptions/);
      });

      it('deleting the leading controller: the other takes the Lease over and the Send status keeps updating', async () => {
        const lease = `${release}-controller`;
        const { id } = await send(throttled);
        await progress(id, 1500, 60);
        const holder = (await kubectl('get', 'lease', lease, '-n', ns, '-o', 'jsonpath={.spec.holderIdentity}')).trim();
        const leader = (await podsOf('controller')).find((p) => holder.includes(p.name));
        assert.ok(leader, `the Lease holder ${holder} is one of the controller pods`);
        await kubectl('delete', 'pod', leader.name, '-n', ns, '--wait=false');
        await waitFor(`a new holder of the Lease ${lease} (was ${holder})`, async () => {
          const next = (await kubectl('get', 'lease', lease, '-n', ns, '-o', 'jsonpath={.spec.holderIdentity}')).trim();
          return next !== holder && next !== '';
        }, 60_000, 1000);
        const stats = await finished(id, 120);
        assert.equal(stats.sent, audience, JSON.stringify(stats));
        assert.equal(stats.failed, 0);
        // The new leader writes the Send object's final status.
        let object: any;
        await waitFor(`the Send object of send ${id} to show sent = ${audience}`, async () => {
          object = await sendObject(id);
          return object?.status?.sent === audience;
        }, 60_000, 1000).catch((error: Error) => {
          throw new Error(`${error.message}; Send object status: ${JSON.stringify(object?.status)}`);
        });
      });

      it('a sender deleted mid-send and senders scaled from 1 to 3: the send ends exact', async () => {
        // The node has 2 CPUs: three senders at the production request (500m) next to the rest of
        // the release do not fit, so this check gives the senders 250m each.
        await kubectl('set', 'resources', `deploy/${release}-sender`, '-n', ns, '-c', 'sender', '--requests=cpu=250m');
        // The production values' autoscaler keeps at least 2 senders: it may go down to 1 here.
        await kubectl('patch', 'hpa', `${release}-sender`, '-n', ns, '--type', 'merge', '-p', '{"spec":{"minReplicas":1}}');
        await kubectl('scale', `deploy/${release}-sender`, '-n', ns, '--replicas=1');
        await kubectl('rollout', 'status', `deploy/${release}-sender`, '-n', ns, '--timeout=120s');
        await waitFor('one sender pod left after the scale to 1', async () => (await podsOf('sender')).length === 1, 60_000, 1000);
        const [only] = await podsOf('sender');
        const { id } = await send(throttled);
        await progress(id, 1500, 60);
        await kubectl('delete', 'pod', only.name, '-n', ns, '--wait=false');
        await kubectl('scale', `deploy/${release}-sender`, '-n', ns, '--replicas=3');
        const stats = await finished(id, 180);
        assert.equal(stats.sent, audience, JSON.stringify(stats));
        assert.equal(stats.failed, 0);
        assert.equal(stats.remaining, 0);
        await kubectl('rollout', 'status', `deploy/${release}-sender`, '-n', ns, '--timeout=120s');
        const senders = await podsOf('sender');
        assert.equal(senders.length, 3);
        // The chunks left after the scale-up went to more than one sender.
        const recorded: Record<string, number> = {};
        for (const pod of senders) {
          const text = await (await fetch(`http://${pod.ip}:9090/metrics`, { signal: AbortSignal.timeout(5000) })).text();
          recorded[pod.name] = Number(/^herald_sender_chunks_total\{result="recorded"\} (\d+)/m.exec(text)?.[1] ?? 0);
        }
        process.stderr.write(`      chunks recorded per sender: ${JSON.stringify(recorded)}\n`);
        assert.ok(Object.values(recorded).filter((n) => n > 0).length >= 2, `chunks recorded per sender: ${JSON.stringify(recorded)}`);
      });

      it('helm upgrade to a new image during the send: every pod replaced, no 5xx from the api, the send ends exact', async function () {
        this.timeout(6 * 60 * 1000);
        const next = readFileSync(join(nodeDir, 'image-next'), 'utf8').trim();
        const { id } = await send(throttled);
        await progress(id, 500, 60);
        // The api through its Service, every 50 ms while the release rolls.
        const answers: Record<string, number> = {};
        let polling = true;
        const poller = (async () => {
          while (polling) {
            const res = await fetch(`${apiBase}/api/v1/notifications/${id}`, { headers: { Authorization: `Key ${key}` }, signal: AbortSignal.timeout(10_000) })
              .then(async (r) => { await r.text(); return String(r.status); }, (e) => `network ${e.cause?.code ?? e.name}`);
            answers[res] = (answers[res] ?? 0) + 1;
            await sleep(50);
          }
        })();
        // The node has 2 CPUs: a rolling update at the production requests finds no room for the
        // surge pods (they stay Pending and the upgrade times out), so the upgrade lowers them.
        const upgrade = await helm.run(['upgrade', ...releaseArgs(next),
          '--set', 'api.resources.requests.cpu=100m', '--set', 'sender.resources.requests.cpu=250m',
          '--set', 'controller.resources.requests.cpu=50m'], { kubeconfig });
        polling = false;
        await poller;
        process.stderr.write(`      api answers during the upgrade: ${JSON.stringify(answers)}\n`);
        assert.equal(upgrade.code, 0, `helm upgrade: ${upgrade.stderr}`);
        const fivexx = Object.entries(answers).filter(([k]) => k.startsWith('5'));
        assert.deepEqual(fivexx, [], 'no 5xx during the rollout');
        // A refused connection: a pod that no longer listened was still behind the Service (the
        // api's preStop pause covers kube-proxy's delay).
        assert.equal(answers['network ECONNREFUSED'], undefined, `answers: ${JSON.stringify(answers)}`);
        assert.ok((answers['200'] ?? 0) > 50, `answers: ${JSON.stringify(answers)}`);
        const pods = JSON.parse(await kubectl('get', 'pods', '-n', ns, '-l', `app.kubernetes.io/instance=${release}`, '-o', 'json')).items
          .filter((p: any) => !p.metadata.deletionTimestamp);
        for (const pod of pods) assert.equal(pod.spec.containers[0].image, next, pod.metadata.name);
        const stats = await finished(id, 180);
        assert.equal(stats.sent, audience, JSON.stringify(stats));
        assert.equal(stats.failed, 0);
      });
    });
  });
});
