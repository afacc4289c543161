// An App opts in to Apple's broadcast push for Live Activities with spec.liveActivities.broadcast
// (issue 29): the same field in the App resource (both copies of the CRD declare it) and in a
// manifest applied with `herald apps apply -f`, stored with the app; off unless set, and a value
// that is not a boolean is refused by name.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { useTestEnv } from '../env/index.js';
import { herald } from '../support/cli.js';
import { getAppByName } from '../../core/apps/app-store.js';

const app = (name: string, liveActivities: string) => `apiVersion: herald.dev/v1alpha1
kind: App
metadata: {name: ${name}}
spec:
  bundleId: com.example.${name}
${liveActivities}
`;

describe('App spec.liveActivities.broadcast (issue 29)', function () {
  this.timeout(60_000);
  const env = useTestEnv({ bus: false, redis: false });
  let dir: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'herald-broadcast-'));
  });

  async function apply(yaml: string): Promise<{ code: number; stderr: string }> {
    const file = join(dir, `apps-${Math.random().toString(36).slice(2)}.yaml`);
    await writeFile(file, yaml);
    return herald(['apps', 'apply', '-f', file], env.childEnv());
  }

  it('herald apps apply stores true, false and the default (false); applying again changes it', async () => {
    const res = await apply([app('stadium', '  liveActivities: {broadcast: true}'), app('plain', ''), app('off', '  liveActivities: {broadcast: false}')].join('---\n'));
    expect(res.code, res.stderr).to.equal(0);
    expect((await getAppByName(env.pool, 'stadium'))?.liveActivityBroadcast).to.equal(true);
    expect((await getAppByName(env.pool, 'plain'))?.liveActivityBroadcast).to.equal(false);
    expect((await getAppByName(env.pool, 'off'))?.liveActivityBroadcast).to.equal(false);
    expect((await apply(app('stadium', ''))).code).to.equal(0);
    expect((await getAppByName(env.pool, 'stadium'))?.liveActivityBroadcast).to.equal(false);
  });

  it('refuses a value that is not a boolean, naming the field, and stores nothing', async () => {
    const res = await apply(app('typo', '  liveActivities: {broadcast: "yes"}'));
    expect(res.code).to.not.equal(0);
    expect(res.stderr).to.contain('App typo spec.liveActivities.broadcast must be true or false');
    expect(await getAppByName(env.pool, 'typo')).to.equal(undefined);
  });

  for (const file of ['crds/apps.herald.dev.yaml', 'charts/herald/crds/apps.herald.dev.yaml']) {
    it(`${file} declares it: a boolean, false by default`, () => {
      const spec = parse(readFileSync(file, 'utf8')).spec.versions[0].schema.openAPIV3Schema.properties.spec;
      expect(spec.properties.liveActivities.properties.broadcast).to.include({ type: 'boolean', default: false });
    });
  }
});
