// Event destinations through `herald apps apply -f` (issue 28): the App manifest's
// spec.events.destinations[] become the app's destinations, their whsec_ secrets stored sealed and
// never printed; plain http is refused unless HERALD_EVENT_HTTP_HOSTS lists the host; a bad
// secret leaves the destinations as they were and says why.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useTestEnv } from '../env/index.js';
import { herald } from '../support/cli.js';
import { parseKey, useKeyring } from '../../core/secrets/seal.js';
import { openSigningSecret } from '../../core/events/destinations.js';

const APP_ID = '7c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f';
const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const ENCRYPTION_KEY = randomBytes(32).toString('base64');

function manifest(destinations: string, secret = SECRET): string {
  return `apiVersion: herald.dev/v1alpha1
kind: App
metadata: {name: shop}
spec:
  appId: ${APP_ID}
  bundleId: com.example.shop
  events:
    destinations:
${destinations}
---
apiVersion: v1
kind: Secret
metadata: {name: shop-events}
stringData: {signingSecret: "${secret}"}
`;
}

describe('cli: event destinations in App manifests', function () {
  this.timeout(60_000);
  const env = useTestEnv({ bus: false, redis: false });
  let dir: string;
  const apply = async (name: string, yaml: string, extra: Record<string, string> = {}) => {
    await writeFile(join(dir, name), yaml);
    return herald(['apps', 'apply', '-f', join(dir, name)], env.childEnv({ HERALD_ENCRYPTION_KEY: ENCRYPTION_KEY, ...extra }));
  };
  const stored = async () => (await env.pool.query('SELECT name, url, kinds, secret FROM event_destinations WHERE app_id = $1 ORDER BY name', [APP_ID])).rows;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'herald-events-'));
  });
  after(() => useKeyring({ previous: [] }));

  it('stores each destination with its kinds, the secret sealed, and never prints it', async () => {
    const res = await apply('two.yaml', manifest(`    - {name: backend, url: "https://hooks.example.com/herald", kinds: [message.push.failed, subscription.push.unsubscribed], secretRef: {name: shop-events, key: signingSecret}}
    - {name: all, url: "https://all.example.com/in", secretRef: {name: shop-events, key: signingSecret}}`));
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout).to.equal(`shop\t${APP_ID}  (sends are drafts: no credentials are configured)\n`);
    expect(res.stdout + res.stderr).not.to.contain(SECRET.slice(6));
    const rows = await stored();
    expect(rows.map((r) => [r.name, r.url, r.kinds])).to.deep.equal([
      ['all', 'https://all.example.com/in', null],
      ['backend', 'https://hooks.example.com/herald', ['message.push.failed', 'subscription.push.unsubscribed']],
    ]);
    expect(rows[0].secret.toString('latin1')).not.to.contain(SECRET.slice(6)); // sealed
    useKeyring({ current: parseKey(ENCRYPTION_KEY, 'HERALD_ENCRYPTION_KEY'), previous: [] });
    expect(openSigningSecret(APP_ID, rows[0].secret)).to.equal(SECRET);
  });

  it('refuses plain http to a host the operator did not list, naming the setting; takes it when listed', async () => {
    const yaml = manifest(`    - {name: local, url: "http://127.0.0.1:8080/in", secretRef: {name: shop-events, key: signingSecret}}`);
    const refused = await apply('http.yaml', yaml);
    expect(refused.code).not.to.equal(0);
    expect(refused.stderr).to.contain('App shop spec.events.destinations[0]: url http://127.0.0.1:8080/in is plain http: use https, or ask the operator to list 127.0.0.1 in HERALD_EVENT_HTTP_HOSTS');
    expect((await stored()).map((r) => r.name)).to.deep.equal(['all', 'backend']); // nothing changed
    const allowed = await apply('http.yaml', yaml, { HERALD_EVENT_HTTP_HOSTS: '127.0.0.1' });
    expect(allowed.code, allowed.stderr).to.equal(0);
    expect((await stored()).map((r) => r.name)).to.deep.equal(['local']); // the others were removed from the manifest
  });

  it('a secret that is not whsec_ leaves the destinations as they were and says why, without the value', async () => {
    const res = await apply('bad.yaml', manifest(`    - {name: other, url: "https://other.example.com/", secretRef: {name: shop-events, key: signingSecret}}`, 'hunter2-hunter2-hunter2-hunter2'));
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout).to.contain('(event destinations not applied: destination other: signingSecret in Secret shop-events must be a Standard Webhooks secret, whsec_ then the base64 of 24-64 bytes)');
    expect(res.stdout + res.stderr).not.to.contain('hunter2');
    expect((await stored()).map((r) => r.name)).to.deep.equal(['local']);
  });

  it('rotate-key seals the signing secrets with the new key', async () => {
    const next = randomBytes(32).toString('base64');
    const run = await herald(['credentials', 'rotate-key'], env.childEnv({ HERALD_ENCRYPTION_KEY: next, HERALD_ENCRYPTION_KEYS_PREVIOUS: ENCRYPTION_KEY }));
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.match(/ and 1 event signing secret with the current key\n$/);
    const [row] = await stored();
    useKeyring({ current: parseKey(next, 'HERALD_ENCRYPTION_KEY'), previous: [] }); // the old key no longer given
    expect(openSigningSecret(APP_ID, row.secret)).to.equal(SECRET);
  });

  it('refuses a link-local destination', async () => {
    const res = await apply('ssrf.yaml', manifest(`    - {name: meta, url: "https://169.254.169.254/latest/", secretRef: {name: shop-events, key: signingSecret}}`));
    expect(res.code).not.to.equal(0);
    expect(res.stderr).to.contain('url https://169.254.169.254 points at a link-local or metadata address');
  });
});
