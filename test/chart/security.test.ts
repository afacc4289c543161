// In the chart: Secrets never granted cluster-wide by default, the public ingress serves
// the API only and over TLS, and the optional NetworkPolicies let each pod reach only its needs.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { expect } from 'chai';
import { find, valuesDir, useHelm, type Manifest } from './helm.js';

const minimal = join(valuesDir, 'minimal.yaml');
const NS = 'herald';

describe('charts/herald: security defaults', function () {
  this.timeout(600_000);
  const helm = useHelm();
  const rulesOf = (m: Manifest) => ((m as { rules?: Array<{ resources?: string[]; verbs?: string[] }> }).rules ?? []);

  it('grants no Secret access in a ClusterRole; a Role in the release namespace and per controller.appNamespaces entry instead', async () => {
    const secretRoles = (list: Manifest[]) => list.filter((m) => m.kind === 'Role' && rulesOf(m).some((r) => r.resources?.includes('secrets')));
    expect(secretRoles(await helm().template(['-n', NS, '-f', minimal])).map((m) => m.metadata.namespace)).to.deep.equal([NS]);
    const ms = await helm().template(['-n', NS, '-f', minimal, '--set', `controller.appNamespaces={shop,news,${NS}}`]);
    for (const m of ms.filter((x) => x.kind === 'ClusterRole')) {
      expect(rulesOf(m).flatMap((r) => r.resources ?? []), m.metadata.name).to.not.include('secrets');
    }
    expect(secretRoles(ms).map((m) => m.metadata.namespace).sort()).to.deep.equal([NS, 'news', 'shop'].sort());
    expect(ms.filter((m) => m.kind === 'RoleBinding' && m.metadata.name === 'herald-controller-secrets')).to.have.length(3);
  });

  it('routes only /api/ and /dashboard/ through the ingress, with TLS, by default', async () => {
    const ms = await helm().template(['-n', NS, '-f', minimal, '--set', 'ingress.enabled=true']);
    const ingress = find(ms, 'Ingress', 'herald-api');
    const rules: Array<{ http: { paths: Array<{ path: string }> } }> = ingress.spec.rules;
    const paths = rules.flatMap((r) => r.http.paths.map((p) => p.path));
    expect(paths).to.deep.equal(['/api/', '/dashboard/']);
    expect(ingress.spec.tls).to.have.length(1);
  });

  it('renders no NetworkPolicy unless asked; with networkPolicy.enabled, senders reach only the datastores, DNS, Apple (its gateway and channel management) and Google (443: test/chart/egress-fcm.test.ts)', async () => {
    expect((await helm().template(['-n', NS, '-f', minimal])).filter((m) => m.kind === 'NetworkPolicy')).to.deep.equal([]);
    const ms = await helm().template(['-n', NS, '-f', minimal, '--set', 'networkPolicy.enabled=true']);
    expect(ms.filter((m) => m.kind === 'NetworkPolicy').map((m) => m.metadata.name).sort()).to.deep.equal(['herald-api', 'herald-controller', 'herald-sender']);
    type Egress = { ports?: Array<{ port: number | string }>; to?: Array<{ ipBlock?: { cidr: string } }> };
    const egress: Egress[] = find(ms, 'NetworkPolicy', 'herald-sender').spec.egress;
    const ports = egress.flatMap((e) => (e.ports ?? []).map((p) => p.port)).sort();
    expect(ports).to.deep.equal([2195, 2196, 2197, 2199, 4222, 443, 443, 53, 53, 5432, 6379].sort());
    const apple = egress.find((e) => e.ports?.some((p) => p.port === 2197))!;
    expect(apple.to).to.deep.equal([{ ipBlock: { cidr: '17.0.0.0/8' } }]);
    // Whichever sender or controller leads the scheduler deletes ended Live Activities' channels
    // at Apple's management host; the controller talks to nothing else of Apple's.
    expect(apple.ports!.map((p) => p.port).sort()).to.deep.equal([443, 2195, 2196, 2197, 2199].sort());
    const controllerApple = (find(ms, 'NetworkPolicy', 'herald-controller').spec.egress as Egress[]).find((e) => e.ports?.some((p) => p.port === 2196))!;
    expect(controllerApple.ports!.map((p) => p.port).sort()).to.deep.equal([2195, 2196, 2199]);
    expect(controllerApple.to).to.deep.equal([{ ipBlock: { cidr: '17.0.0.0/8' } }]);
    const api = find(ms, 'NetworkPolicy', 'herald-api');
    expect(api.spec.ingress[0].from[0].namespaceSelector.matchLabels).to.deep.equal({ 'kubernetes.io/metadata.name': 'ingress-nginx' });
    // The api reaches Apple too: a Live Activity update's broadcast and its channel management.
    const apiApple = (api.spec.egress as Egress[]).find((e) => e.ports?.some((p) => p.port === 443))!;
    expect(apiApple.ports!.map((p) => p.port).sort()).to.deep.equal([443, 2195, 2196, 2197, 2199].sort());
    expect(apiApple.to).to.deep.equal([{ ipBlock: { cidr: '17.0.0.0/8' } }]);
  });

  it("lets the senders reach the event destinations the operator lists, and nothing more", async () => {
    const rule = { to: [{ ipBlock: { cidr: '203.0.113.0/24' } }], ports: [{ port: 443, protocol: 'TCP' }] };
    const dir = await mkdtemp(join(tmpdir(), 'herald-np-'));
    try {
      const file = join(dir, 'np.yaml');
      await writeFile(file, stringify({ networkPolicy: { enabled: true, egress: { eventDestinations: [rule] } } }));
      const ms = await helm().template(['-n', NS, '-f', minimal, '-f', file]);
      expect(find(ms, 'NetworkPolicy', 'herald-sender').spec.egress).to.deep.include(rule);
      expect(find(ms, 'NetworkPolicy', 'herald-api').spec.egress).to.not.deep.include(rule);
      const none = await helm().template(['-n', NS, '-f', minimal, '--set', 'networkPolicy.enabled=true']);
      expect(find(none, 'NetworkPolicy', 'herald-sender').spec.egress.some((e: { to?: Array<{ ipBlock?: { cidr: string } }> }) => e.to?.some((t) => t.ipBlock?.cidr === '203.0.113.0/24'))).to.equal(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
