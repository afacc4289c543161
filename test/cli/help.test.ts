// The command line as a person meets it: help for every command, the version, usage errors in
// Herald's own words with exit 2 everywhere, `herald apps list`, and `--app NAME` for a cluster
// App stored as NAMESPACE/NAME.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { herald } from '../support/cli.js';
import { setInvoiceOverdue, upsertApp } from '../../core/apps/app-store.js';
import { COMMANDS, commandPage } from '../../cli/help.js';

describe('cli: help, version, usage errors, apps list', function () {
  // Each case is a process (bin/herald.js): about 1 s each on a quiet 2-core machine, 2-3 s with
  // the integration suite beside it; a test of ~30 of them needs more than mocha's minute then.
  this.timeout(180_000);
  const env = useTestEnv({ bus: false, redis: false });
  const run = (...args: string[]) => herald(args, env.childEnv());

  it('prints the version from package.json', async () => {
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    for (const args of [['--version'], ['-V'], ['version']]) {
      const res = await run(...args);
      expect(res, args.join(' ')).to.include({ code: 0, stdout: `herald ${version}\n` });
    }
  });

  it('herald help lists every command; herald help COMMAND and COMMAND --help print its page', async () => {
    const list = await run('help');
    expect(list.code).to.equal(0);
    for (const c of COMMANDS) expect(list.stdout, c.synopsis).to.contain(c.synopsis.slice('herald '.length));
    expect((await run('--help')).stdout).to.equal(list.stdout);
    // Every command's page through `COMMAND --help`, held against the page `cli/help.ts` writes;
    // `help COMMAND` through a process for the first, a two-word and the last command (the same
    // function answers both, cli/main.ts): about 30 processes, not 60, so a loaded machine keeps
    // within the timeout.
    const commands = COMMANDS.filter((x) => x.words[0] !== 'help');
    for (const c of commands) {
      const viaFlag = await run(...c.words, '--help');
      expect(viaFlag.code, `${c.words.join(' ')} --help: ${viaFlag.stderr}`).to.equal(0);
      expect(viaFlag.stdout, c.words.join(' ')).to.match(new RegExp(`^usage: herald ${c.words.join(' ')}`));
      expect(viaFlag.stdout, c.words.join(' ')).to.equal(commandPage(c));
      expect(viaFlag.stdout).to.not.equal(list.stdout);
    }
    for (const c of [commands[0], commands.find((x) => x.words.length === 2)!, commands[commands.length - 1]]) {
      expect((await run('help', ...c.words)).stdout, `help ${c.words.join(' ')}`).to.equal(commandPage(c));
    }
    const group = await run('apps', '--help');
    expect(group.stdout).to.contain('herald apps list').and.contain('herald apps apply -f FILE');
  });

  it("prints a command's page for --help whatever other options the line holds", async () => {
    const page = (await run('help', 'apns-sim')).stdout;
    for (const args of [['apns-sim', '--port', '1', '--help'], ['apns-sim', '--port=1', '-h'], ['apns-sim', '--nope', '--help']]) {
      const res = await run(...args);
      expect(res, args.join(' ')).to.include({ code: 0, stdout: page });
    }
    const revoke = await run('keys', 'revoke', '--app', 'shop', 'not-a-uuid', '--bogus', '--help');
    expect(revoke, revoke.stderr).to.include({ code: 0, stdout: (await run('help', 'keys', 'revoke')).stdout });
  });

  it('documents the NDJSON format of import, with an example that imports', async () => {
    const page = (await run('import', '--help')).stdout;
    for (const field of ['token', 'id', 'external_id', 'language', 'timezone', 'tags', 'subscribed']) expect(page).to.match(new RegExp(`^  ${field} `, 'm'));
    const example = /^Example:\n  (\{.+\})$/m.exec(page)![1];
    await upsertApp(env.pool, { name: 'example', bundleId: 'com.example.example' });
    const dir = mkdtempSync(join(tmpdir(), 'herald-help-'));
    writeFileSync(join(dir, 'one.ndjson'), `${example}\n`);
    const imported = await run('import', '--app', 'example', join(dir, 'one.ndjson'));
    expect(imported.code, imported.stderr).to.equal(0);
    expect(imported.stdout).to.match(/^imported 1 subscriptions into example \(0 lines rejected\)/);
  });

  it('answers every usage error in its own words with exit 2', async () => {
    const cases: Array<[string[], RegExp]> = [
      [[], /^herald: name a command/],
      [['--bogus'], /^herald: unknown option --bogus; herald help lists/],
      [['keys', 'list', '--app'], /^herald: --app needs a value/],
      [['frobnicate'], /^herald: unknown command frobnicate/],
      [['apps', 'nope'], /^herald: apps nope is not a command of apps/],
      [['help', 'nope'], /^herald: no command nope/],
      [['apps', 'apply'], /^herald: usage: herald apps apply -f FILE/],
      [['apps', 'overdue', '--app', 'shop'], /^herald: usage: herald apps overdue/],
      [['apps', 'move-id', '--app', 'x/y', 'not-a-uuid'], /^herald: usage: herald apps move-id/],
      [['apps', 'identity', '--app', 'shop', 'maybe'], /^herald: usage: herald apps identity/],
      [['keys', 'create'], /^herald: name the app with --app NAME/],
      [['keys', 'create', '--app', 'shop', '--scope', 'owner'], /^herald: --scope is read \(/],
      [['keys', 'revoke', '--app', 'shop'], /^herald: usage: herald keys revoke/],
      [['keys', 'revoke', '--app', 'shop', 'not-a-uuid'], /^herald: KEY_ID is the key's id as herald keys list shows it \(a UUID\), not not-a-uuid/],
      [['import', '--app', 'shop'], /^herald: usage: herald import/],
      [['apns-sim', '--port', 'x'], /^herald: --port must be a non-negative integer/],
      [['apns-sim', '--nope'], /^herald: unknown option --nope/],
    ];
    for (const [args, message] of cases) {
      const res = await run(...args);
      expect(res.code, `herald ${args.join(' ')}: ${res.stderr}`).to.equal(2);
      expect(res.stderr, args.join(' ')).to.match(message);
      expect(res.stderr).to.not.contain('To specify a positional argument').and.not.contain('    at ');
    }
  });

  it('apps list shows name, app id, environment, credentials and billing; --app takes a name unique across namespaces', async () => {
    const shop = await upsertApp(env.pool, { name: 'retail/shop', bundleId: 'com.example.shop', environment: 'sandbox' });
    const a = await upsertApp(env.pool, { name: 'team-a/news', bundleId: 'com.example.news' });
    await upsertApp(env.pool, { name: 'team-b/news', bundleId: 'com.example.news2' });
    await setInvoiceOverdue(env.pool, a.id, true);
    const list = await run('apps', 'list');
    expect(list.code, list.stderr).to.equal(0);
    const lines = list.stdout.trim().split('\n');
    expect(lines[0]).to.equal('NAME\tAPP_ID\tENVIRONMENT\tCREDENTIALS\tBILLING');
    expect(lines).to.include(`retail/shop\t${shop.id}\tsandbox\tnone\tok`);
    expect(lines).to.include(`team-a/news\t${a.id}\tproduction\tnone\toverdue (paused)`);

    const unique = await run('keys', 'list', '--app', 'shop');
    expect(unique.code, unique.stderr).to.equal(0);
    expect(unique.stdout).to.match(/^ID\tNAME/);
    const ambiguous = await run('keys', 'list', '--app', 'news');
    expect(ambiguous.code).to.equal(2);
    expect(ambiguous.stderr).to.contain('news names an App in several namespaces: team-a/news, team-b/news; give --app NAMESPACE/NAME');
    expect((await run('keys', 'list', '--app', 'team-b/news')).code).to.equal(0);
    const unknown = await run('keys', 'list', '--app', 'nobody');
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.contain('no app named nobody');
  });
});
