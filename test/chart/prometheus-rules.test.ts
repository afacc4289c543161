// The chart's PrometheusRule, as rendered, through promtool (Debian's prometheus package;
// scripts/ensure-promtool.sh installs it): `check rules` parses every expression, and
// `test rules` runs test/chart/rules/herald-rules.test.yaml's synthetic series through them.
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { stringify } from 'yaml';
import { find, repoRoot, valuesDir, useHelm } from './helm.js';

const run = async (cmd: string, args: string[]) => {
  try {
    const { stdout, stderr } = await promisify(execFile)(cmd, args, { maxBuffer: 16 << 20 });
    return { code: 0, out: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number | string; stdout?: string; stderr?: string };
    if (e.code === 'ENOENT') throw new Error(`${cmd} is not installed: run scripts/ensure-promtool.sh (Debian's prometheus package)`);
    return { code: Number(e.code), out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
};

describe('charts/herald: the PrometheusRule through promtool', function () {
  this.timeout(60_000);
  const helm = useHelm();
  let dir: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'herald-rules-'));
    // Release "herald" in namespace "herald": the test series carry those namespace and job labels.
    const ms = await helm().template(['-n', 'herald', '-f', join(valuesDir, 'operations.yaml')]);
    const rule = find(ms, 'PrometheusRule', 'herald');
    await writeFile(join(dir, 'rules.yaml'), stringify({ groups: rule.spec.groups }));
    await copyFile(join(repoRoot, 'test/chart/rules/herald-rules.test.yaml'), join(dir, 'herald-rules.test.yaml'));
  });
  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('passes promtool check rules (every expression parses, no duplicate rules)', async () => {
    const r = await run('promtool', ['check', 'rules', join(dir, 'rules.yaml')]);
    expect(r.code, r.out).to.equal(0);
    expect(r.out).to.contain('SUCCESS: 12 rules found');
  });

  it('passes promtool test rules: each alert fires on its synthetic series and stays quiet on healthy ones', async () => {
    const r = await run('promtool', ['test', 'rules', join(dir, 'herald-rules.test.yaml')]);
    expect(r.code, r.out).to.equal(0);
    expect(r.out).to.contain('SUCCESS');
  });
});
