// Logs as a person and a machine read them: on a terminal, readable lines; piped (a pod, a file),
// JSON one object a line; HERALD_LOG_FORMAT chooses; secrets are masked either way.
import { execFile } from 'node:child_process';
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { herald } from '../support/cli.js';

/** Runs a command under `script`, which gives it a terminal, as a person's shell does. */
function onTerminal(command: string, env: Record<string, string>): Promise<string> {
  return new Promise((resolve) => {
    execFile('script', ['-qec', command, '/dev/null'], { env }, (_error, stdout) => resolve(stdout.replace(/\x1b\[[0-9;]*m/g, '')));
  });
}

describe('cli: log format', function () {
  this.timeout(60_000);
  const env = useTestEnv({ bus: false, redis: false });
  // A database without Herald's schema: the api logs its start, then stops with a one-line error.
  const settings = () => {
    const url = new URL(env.childEnv().HERALD_DATABASE_URL);
    url.pathname = '/postgres';
    url.password = 's3cret-pw';
    return env.childEnv({ HERALD_DATABASE_URL: url.toString(), HERALD_HTTP_PORT: '0', HERALD_LOG_LEVEL: 'info' });
  };

  it('writes JSON when its output is not a terminal', async () => {
    const res = await herald(['api'], settings());
    const first = JSON.parse(res.stdout.split('\n')[0]);
    expect(first).to.include({ level: 30, name: 'herald-api', msg: 'herald api starting' });
    expect(res.stdout).to.not.contain('s3cret-pw');
  });

  it('writes readable lines on a terminal, JSON when HERALD_LOG_FORMAT=json', async () => {
    const lines = await onTerminal('node bin/herald.js api', settings());
    expect(lines).to.match(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(herald-api\): herald api starting /m);
    expect(lines).to.not.contain('s3cret-pw');
    const json = await onTerminal('node bin/herald.js api', { ...settings(), HERALD_LOG_FORMAT: 'json' });
    expect(JSON.parse(json.split(/\r?\n/)[0])).to.include({ msg: 'herald api starting' });
  });

  it('refuses an unknown format naming the variable', async () => {
    const res = await herald(['api'], { ...settings(), HERALD_LOG_FORMAT: 'xml' });
    expect(res.code).to.equal(2);
    expect(res.stderr).to.contain('HERALD_LOG_FORMAT');
  });
});
