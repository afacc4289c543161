// The Helm chart (charts/herald) with a real helm (tools/helm/build.sh): lint and what
// `helm template` renders. The schema's refusals are in values-schema.test.ts, the rendered chart
// on a real kube-apiserver in apiserver.test.ts.
import { X509Certificate } from 'node:crypto';
import { readdir, readFile, writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { stringify } from 'yaml';
import { chartDir, find, repoRoot, valuesDir, type Manifest, useHelm } from './helm.js';

const minimal = join(valuesDir, 'minimal.yaml');
const full = join(valuesDir, 'full.yaml');
const NS = 'herald';
// Release "herald" of chart "herald": the fullname is just "herald".
const FULL = 'herald';

const workloads = (ms: Manifest[]) => ms.filter((m) => m.kind === 'Deployment' || m.kind === 'Job');
const containersOf = (m: Manifest): any[] => m.spec.template.spec.containers;
const envOf = (c: any): Map<string, any> => new Map((c.env ?? []).map((e: any) => [e.name, e]));
const configMap = (ms: Manifest[]) => find(ms, 'ConfigMap', `${FULL}-config`).data ?? {};
const kindsAndNames = (ms: Manifest[]) => ms.map((m) => `${m.kind}/${m.metadata.name}`).sort();

describe('charts/herald', function () {
  const helm = useHelm();

  it('carries CRDs byte-identical to crds/ (the source)', async () => {
    const source = (await readdir(join(repoRoot, 'crds'))).filter((f) => f.endsWith('.yaml')).sort();
    const copies = (await readdir(join(chartDir, 'crds'))).sort();
    expect(copies, 'charts/herald/crds/ holds other files than crds/; run: cp crds/*.yaml charts/herald/crds/').to.deep.equal(source);
    for (const file of source) {
      const [a, b] = await Promise.all([readFile(join(repoRoot, 'crds', file)), readFile(join(chartDir, 'crds', file))]);
      expect(b.equals(a), `charts/herald/crds/${file} differs from crds/${file}; run: cp crds/*.yaml charts/herald/crds/`).to.equal(true);
    }
  });

  describe('helm lint --strict', () => {
    for (const file of ['test/chart/values/minimal.yaml', 'test/chart/values/full.yaml', 'test/chart/values/operations.yaml', 'test/kind/values.yaml']) {
      it(`passes with ${file}`, async () => {
        const result = await helm().run(['lint', '--strict', chartDir, '-f', join(repoRoot, file)]);
        expect(result.code, result.stdout + result.stderr).to.equal(0);
        expect(result.stdout).to.contain('0 chart(s) failed');
      });
    }
  });

  describe('helm template with the default values (and the three URLs)', () => {
    let ms: Manifest[];
    before(async () => {
      ms = await helm().template(['-n', NS, '-f', minimal]);
    });

    it('renders every kind expected, and no optional part', () => {
      const expected = [
        'ConfigMap/herald-config',
        'Deployment/herald-api',
        'Deployment/herald-controller',
        'Deployment/herald-sender',
        'Job/herald-migrate',
        'PodDisruptionBudget/herald-api',
        'PodDisruptionBudget/herald-controller',
        'PodDisruptionBudget/herald-sender',
        'Secret/herald-connections',
        'Secret/herald-encryption',
        'Secret/herald-migrate',
        'Service/herald-api',
        'Service/herald-controller-metrics',
        'Service/herald-sender-metrics',
        'ServiceAccount/herald-controller',
      ];
      const rendered = kindsAndNames(ms);
      expect(rendered).to.include.members(expected);
      // Anything else may only be the controller's RBAC (templates/controller-rbac.yaml).
      const rest = rendered.filter((r) => !expected.includes(r));
      expect(rest.filter((r) => !/^(Cluster)?Role(Binding)?\//.test(r))).to.deep.equal([]);
      for (const optional of ['Ingress', 'HorizontalPodAutoscaler', 'ServiceMonitor']) {
        expect(ms.map((m) => m.kind)).not.to.include(optional);
      }
    });

    it('runs each role from one image with the herald entry point', () => {
      const roles = workloads(ms).map((m) => [m.metadata.name, containersOf(m)[0].args]);
      expect(roles).to.have.deep.members([
        ['herald-api', ['api']],
        ['herald-sender', ['sender']],
        ['herald-controller', ['controller']],
        ['herald-migrate', ['migrate']],
      ]);
      for (const m of workloads(ms)) expect(containersOf(m)[0].image).to.equal('ghcr.io/herald-dev/herald:0.1.0');
    });

    it('runs every container as non-root with a read-only root filesystem and no capabilities', () => {
      for (const m of workloads(ms)) {
        const pod = m.spec.template.spec;
        expect(pod.securityContext.runAsNonRoot, m.metadata.name).to.equal(true);
        for (const c of pod.containers) {
          const sc = c.securityContext;
          expect(sc.runAsNonRoot, `${m.metadata.name}/${c.name}`).to.equal(true);
          expect(sc.readOnlyRootFilesystem, `${m.metadata.name}/${c.name}`).to.equal(true);
          expect(sc.allowPrivilegeEscalation, `${m.metadata.name}/${c.name}`).to.equal(false);
          expect(sc.capabilities.drop, `${m.metadata.name}/${c.name}`).to.deep.equal(['ALL']);
          expect(c.resources.requests, `${m.metadata.name}/${c.name}`).to.have.keys('cpu', 'memory');
          expect(c.volumeMounts.map((v: any) => v.mountPath), 'a writable /tmp').to.include('/tmp');
        }
      }
    });

    it('probes the api on /healthz and /readyz, senders and controllers on HERALD_METRICS_PORT', () => {
      const api = containersOf(find(ms, 'Deployment', 'herald-api'))[0];
      expect(api.livenessProbe.httpGet).to.deep.equal({ path: '/healthz', port: 'http' });
      expect(api.readinessProbe.httpGet).to.deep.equal({ path: '/readyz', port: 'http' });
      expect(api.ports).to.deep.equal([{ name: 'http', containerPort: 8080, protocol: 'TCP' }]);
      const sender = containersOf(find(ms, 'Deployment', 'herald-sender'))[0];
      expect(sender.ports).to.deep.equal([{ name: 'metrics', containerPort: 9090, protocol: 'TCP' }]);
      expect(sender.livenessProbe.httpGet).to.deep.equal({ path: '/healthz', port: 'metrics' });
      expect(sender.readinessProbe.httpGet).to.deep.equal({ path: '/readyz', port: 'metrics' });
      expect(configMap(ms).HERALD_METRICS_PORT).to.equal('9090');
      const controller = containersOf(find(ms, 'Deployment', 'herald-controller'))[0];
      expect(controller.ports).to.deep.equal([{ name: 'metrics', containerPort: 9090, protocol: 'TCP' }]);
      expect(controller.startupProbe.httpGet).to.deep.equal({ path: '/healthz', port: 'metrics' });
      expect(controller.livenessProbe.httpGet).to.deep.equal({ path: '/healthz', port: 'metrics' });
      expect(controller.readinessProbe.httpGet).to.deep.equal({ path: '/readyz', port: 'metrics' });
    });

    it('gives pods HERALD_SHUTDOWN_GRACE_SECONDS plus 10 s to stop', () => {
      expect(configMap(ms).HERALD_SHUTDOWN_GRACE_SECONDS).to.equal('25');
      for (const name of ['herald-api', 'herald-sender', 'herald-controller']) {
        expect(find(ms, 'Deployment', name).spec.template.spec.terminationGracePeriodSeconds, name).to.equal(35);
      }
    });

    it('keeps the URLs in a Secret and every other setting in the ConfigMap', () => {
      expect(find(ms, 'Secret', 'herald-connections').stringData).to.deep.equal({
        HERALD_DATABASE_URL: 'postgres://herald:secret@postgresql:5432/herald',
        HERALD_REDIS_URL: 'redis://redis:6379',
        HERALD_NATS_URL: 'nats://nats:4222',
      });
      expect(JSON.stringify(configMap(ms))).not.to.match(/postgres:|redis:\/\/|nats:\/\//);
      for (const name of ['herald-api', 'herald-sender', 'herald-controller']) {
        const c = containersOf(find(ms, 'Deployment', name))[0];
        expect(c.envFrom).to.deep.equal([{ configMapRef: { name: 'herald-config' } }]);
        for (const v of ['HERALD_DATABASE_URL', 'HERALD_REDIS_URL', 'HERALD_NATS_URL']) {
          expect(envOf(c).get(v).valueFrom.secretKeyRef, `${name} ${v}`).to.deep.equal({ name: 'herald-connections', key: v });
        }
      }
      expect(configMap(ms)).to.include({
        HERALD_TRUST_PROXY_HOPS: '0',
        HERALD_MIRROR_SENDS: 'broadcasts',
        HERALD_NAMESPACE: '',
        HERALD_LEASE_NAMESPACE: NS,
        HERALD_LEASE_NAME: 'herald-controller',
      });
    });

    it('rolls the pods when a setting changes (checksum annotations)', async () => {
      const other = await helm().template(['-n', NS, '-f', minimal, '--set', 'logLevel=debug']);
      for (const name of ['herald-api', 'herald-sender', 'herald-controller']) {
        const before = find(ms, 'Deployment', name).spec.template.metadata.annotations['checksum/config'];
        const after = find(other, 'Deployment', name).spec.template.metadata.annotations['checksum/config'];
        expect(after, name).to.be.a('string').and.not.equal(before);
      }
    });

    it('runs herald migrate as a pre-install,pre-upgrade hook, its URL in a hook Secret made just before', () => {
      const job = find(ms, 'Job', 'herald-migrate');
      expect(job.metadata.annotations).to.include({ 'helm.sh/hook': 'pre-install,pre-upgrade', 'helm.sh/hook-weight': '0' });
      const secret = find(ms, 'Secret', 'herald-migrate');
      expect(secret.metadata.annotations).to.include({ 'helm.sh/hook': 'pre-install,pre-upgrade', 'helm.sh/hook-weight': '-10' });
      expect(secret.stringData).to.deep.equal({ HERALD_DATABASE_URL: 'postgres://herald:secret@postgresql:5432/herald' });
      const c = containersOf(job)[0];
      expect(envOf(c).get('HERALD_DATABASE_URL').valueFrom.secretKeyRef).to.deep.equal({ name: 'herald-migrate', key: 'HERALD_DATABASE_URL' });
      expect(job.spec.template.spec.restartPolicy).to.equal('Never');
    });

    it('runs 2 controllers under the ServiceAccount herald-controller, with their pod name for the Lease', () => {
      const d = find(ms, 'Deployment', 'herald-controller');
      expect(d.spec.replicas).to.equal(2);
      expect(d.spec.template.spec.serviceAccountName).to.equal('herald-controller');
      expect(find(ms, 'ServiceAccount', 'herald-controller').metadata.namespace).to.equal(NS);
      const env = envOf(containersOf(d)[0]);
      expect(env.get('HERALD_POD_NAME').valueFrom.fieldRef.fieldPath).to.equal('metadata.name');
      expect(env.get('HERALD_POD_NAMESPACE').valueFrom.fieldRef.fieldPath).to.equal('metadata.namespace');
      // Only the controller talks to the Kubernetes API.
      for (const name of ['herald-api', 'herald-sender']) {
        expect(find(ms, 'Deployment', name).spec.template.spec.automountServiceAccountToken, name).to.equal(false);
      }
    });

    it('binds the controller RBAC (templates/controller-rbac.yaml) to that ServiceAccount, its Lease by name', () => {
      const bindings = ms.filter((m) => m.kind === 'RoleBinding' || m.kind === 'ClusterRoleBinding');
      expect(bindings, 'no RoleBinding or ClusterRoleBinding rendered').not.to.be.empty;
      for (const b of bindings) {
        expect(b.subjects, `${b.kind}/${b.metadata.name}`).to.deep.include({ kind: 'ServiceAccount', name: 'herald-controller', namespace: NS });
        find(ms, b.roleRef.kind, b.roleRef.name);
      }
      const leases = ms
        .filter((m) => m.kind === 'Role' || m.kind === 'ClusterRole')
        .flatMap((r) => r.rules)
        .filter((rule: any) => rule.resources.includes('leases') && rule.resourceNames);
      expect(leases.flatMap((rule: any) => rule.resourceNames)).to.include(configMap(ms).HERALD_LEASE_NAME);
    });

    it('guards each role with a PodDisruptionBudget selecting its pods', () => {
      for (const role of ['api', 'sender', 'controller']) {
        const pdb = find(ms, 'PodDisruptionBudget', `herald-${role}`);
        const d = find(ms, 'Deployment', `herald-${role}`);
        expect(pdb.spec.selector.matchLabels).to.deep.equal(d.spec.selector.matchLabels);
      }
      expect(find(ms, 'PodDisruptionBudget', 'herald-api').spec).to.include({ minAvailable: 1 });
      expect(find(ms, 'PodDisruptionBudget', 'herald-controller').spec).to.include({ maxUnavailable: 1 });
    });
  });

  describe('helm template with every option on (test/chart/values/full.yaml)', () => {
    let ms: Manifest[];
    before(async () => {
      ms = await helm().template(['-n', NS, '-f', full]);
    });

    it('adds the ingress, the sender HPA, ServiceMonitors and the APNs simulator', () => {
      expect(kindsAndNames(ms)).to.include.members([
        'Ingress/herald-api',
        'HorizontalPodAutoscaler/herald-sender',
        'ServiceMonitor/herald-api',
        'ServiceMonitor/herald-sender',
        'ServiceMonitor/herald-controller',
        'Deployment/herald-apns-sim',
        'Service/herald-apns-sim',
        'Secret/herald-apns-sim-tls',
      ]);
    });

    it('trusts one proxy hop behind the ingress, unless told otherwise', async () => {
      expect(configMap(ms).HERALD_TRUST_PROXY_HOPS).to.equal('1');
      const two = await helm().template(['-n', NS, '-f', full, '--set', 'api.trustProxyHops=2']);
      expect(configMap(two).HERALD_TRUST_PROXY_HOPS).to.equal('2');
      const none = await helm().template(['-n', NS, '-f', full, '--set', 'api.trustProxyHops=0']);
      expect(configMap(none).HERALD_TRUST_PROXY_HOPS).to.equal('0');
      const ingress = find(ms, 'Ingress', 'herald-api');
      expect(ingress.spec.ingressClassName).to.equal('nginx');
      expect(ingress.spec.rules[0].http.paths[0].backend.service).to.deep.equal({ name: 'herald-api', port: { name: 'http' } });
    });

    it('leaves the sender replica count to the HPA', () => {
      expect(find(ms, 'Deployment', 'herald-sender').spec).not.to.have.property('replicas');
      const hpa = find(ms, 'HorizontalPodAutoscaler', 'herald-sender');
      expect(hpa.spec).to.include({ minReplicas: 2, maxReplicas: 20 });
      expect(hpa.spec.scaleTargetRef).to.deep.equal({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'herald-sender' });
    });

    it('reads a URL from an existing Secret, and then keeps no copy of it', () => {
      for (const m of workloads(ms).filter((w) => w.metadata.name !== 'herald-apns-sim')) {
        const ref = envOf(containersOf(m)[0]).get('HERALD_DATABASE_URL').valueFrom.secretKeyRef;
        expect(ref, m.metadata.name).to.deep.equal({ name: 'herald-db', key: 'uri' });
      }
      expect(find(ms, 'Secret', 'herald-connections').stringData).to.have.keys('HERALD_REDIS_URL', 'HERALD_NATS_URL');
      expect(kindsAndNames(ms)).not.to.include('Secret/herald-migrate');
    });

    it('points the senders at the simulator, trusting a CA whose certificate names its Service', () => {
      const cm = configMap(ms);
      expect(cm.HERALD_APNS_URL).to.equal(`https://herald-apns-sim.${NS}.svc:2197`);
      // Live Activity channels are managed on the simulator's own management port, which its Service exposes.
      expect(cm.HERALD_APNS_BROADCAST_URL).to.equal(`https://herald-apns-sim.${NS}.svc:2199`);
      expect(find(ms, 'Service', 'herald-apns-sim').spec.ports).to.deep.include({ name: 'management', port: 2199, targetPort: 'management', protocol: 'TCP' });
      // Each role that reads the CA mounts it: the next test.
      const tls = find(ms, 'Secret', 'herald-apns-sim-tls').data!;
      expect(tls).to.have.keys('apns-sim-ca.pem', 'apns-sim-ca.key', 'apns-sim-server.pem', 'apns-sim-server.key');
      const ca = new X509Certificate(Buffer.from(tls['apns-sim-ca.pem'], 'base64'));
      const server = new X509Certificate(Buffer.from(tls['apns-sim-server.pem'], 'base64'));
      expect(server.verify(ca.publicKey)).to.equal(true);
      expect(server.checkHost(`herald-apns-sim.${NS}.svc`)).to.equal(`herald-apns-sim.${NS}.svc`);
      const sim = containersOf(find(ms, 'Deployment', 'herald-apns-sim'))[0];
      expect(sim.args).to.deep.equal(['apns-sim']);
      expect(envOf(sim).get('HERALD_APNS_SIM_HOST').value).to.equal('0.0.0.0');
      expect(envOf(sim).get('HERALD_APNS_SIM_CERT_DIR').value).to.equal('/etc/herald/apns-sim');
    });

    // The configmap gives HERALD_APNS_CA_FILE to every role, and a role whose command reads it
    // (cli/commands/<args[0]>.ts) exits at start with ENOENT when the file is not mounted: the api
    // did until 0.2.2, the controller (deleting Live Activity channels) until 0.2.5.
    it('mounts the APNs CA in every role that reads HERALD_APNS_CA_FILE, the simulator\'s or apns.caSecret', async () => {
      const ownCa = await helm().template(['-n', NS, '-f', full, '--set', 'apnsSimulator.enabled=false', '--set', 'apns.caSecret.name=corp-ca', '--set', 'apns.caSecret.key=root.pem']);
      const cases = [
        { ms, secret: { secretName: 'herald-apns-sim-tls', items: [{ key: 'apns-sim-ca.pem', path: 'ca.pem' }] } },
        { ms: ownCa, secret: { secretName: 'corp-ca', items: [{ key: 'root.pem', path: 'ca.pem' }] } },
      ];
      for (const { ms: rendered, secret } of cases) {
        expect(configMap(rendered).HERALD_APNS_CA_FILE).to.equal('/etc/herald/apns-ca/ca.pem');
        const readers: string[] = [];
        for (const m of workloads(rendered)) {
          const command = containersOf(m)[0].args?.[0];
          const source = await readFile(join(repoRoot, 'cli/commands', `${command}.ts`), 'utf8');
          if (!source.includes('config.apnsCaFile')) continue;
          readers.push(m.metadata.name);
          const pod = m.spec.template.spec;
          expect(pod.containers[0].volumeMounts, m.metadata.name).to.deep.include({ name: 'apns-ca', mountPath: '/etc/herald/apns-ca', readOnly: true });
          expect(pod.volumes, m.metadata.name).to.deep.include({ name: 'apns-ca', secret });
        }
        // The reading of the sources found the three roles (a renamed field would find none).
        expect(readers.sort()).to.deep.equal(['herald-api', 'herald-controller', 'herald-sender']);
      }
    });

    it('maps controller settings and adds extraEnv to every Herald container', () => {
      expect(configMap(ms)).to.include({ HERALD_MIRROR_SENDS: 'all', HERALD_NAMESPACE: 'apps', HERALD_LOG_LEVEL: 'debug', HERALD_STREAM_PREFIX: 'PROD', HERALD_REDIS_PREFIX: 'prod:' });
      for (const name of ['herald-api', 'herald-sender', 'herald-controller', 'herald-migrate']) {
        const m = ms.find((x) => x.metadata.name === name && (x.kind === 'Deployment' || x.kind === 'Job'))!;
        expect(envOf(containersOf(m)[0]).get('NODE_OPTIONS'), name).to.deep.equal({ name: 'NODE_OPTIONS', value: '--max-old-space-size=400' });
      }
    });

    it('writes numbers from a values file as plain integers (never 3.6e+06)', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'herald-chart-'));
      try {
        const file = join(dir, 'big.yaml');
        await writeFile(file, stringify({ sender: { leaseMs: 3_600_000 }, controller: { sendRetentionSeconds: 31_536_000 } }));
        const big = await helm().template(['-n', NS, '-f', minimal, '-f', file]);
        expect(configMap(big)).to.include({ HERALD_SENDER_LEASE_MS: '3600000', HERALD_SEND_RETENTION_SECONDS: '31536000' });
        // The values' older names (a values file written before the rename) still set them.
        await writeFile(file, stringify({ sender: { ackWaitMs: 45_000, maxDeliver: 9 } }));
        const older = configMap(await helm().template(['-n', NS, '-f', minimal, '-f', file]));
        expect(older).to.include({ HERALD_SENDER_LEASE_MS: '45000', HERALD_SENDER_MAX_CHUNK_STARTS: '9' });
        expect(older).to.not.have.property('HERALD_SENDER_ACK_WAIT_MS');
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  });

  it('sets every HERALD_* variable of core/config.ts that a cluster install needs', async () => {
    const source = await readFile(join(repoRoot, 'core/config.ts'), 'utf8');
    const known = new Set(source.match(/'HERALD_[A-Z0-9_]+'/g)!.map((s) => s.slice(1, -1)));
    const notInCluster: Record<string, string> = {
      HERALD_HTTP_HOST: 'the default 0.0.0.0 is right in a pod',
      HERALD_APPS_FILE: 'apps come from App objects in a cluster',
      HERALD_KUBECONFIG: 'the controller uses its ServiceAccount in-cluster',
      HERALD_LOG_FORMAT: 'a pod has no terminal: the default (auto) writes JSON there',
      HERALD_SENDER_ACK_WAIT_MS: 'the older name of HERALD_SENDER_LEASE_MS, which the chart writes',
      HERALD_SENDER_MAX_DELIVER: 'the older name of HERALD_SENDER_MAX_CHUNK_STARTS, which the chart writes',
    };
    const set = new Set<string>();
    for (const ms of [await helm().template(['-n', NS, '-f', minimal]), await helm().template(['-n', NS, '-f', full])]) {
      for (const k of Object.keys(configMap(ms))) set.add(k);
      for (const m of workloads(ms)) for (const c of containersOf(m)) for (const e of c.env ?? []) set.add(e.name);
    }
    const missing = [...known].filter((v) => !set.has(v) && !(v in notInCluster));
    expect(missing, 'HERALD_* settings the chart does not map (values.yaml, configmap.yaml, values.schema.json, docs/install.md)').to.deep.equal([]);
  });
});
