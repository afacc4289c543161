// Starts `herald <role>` as a real child process on a free port and always cleans it up.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join, dirname } from 'node:path';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const running = new Set<ChildProcess>();
process.on('exit', () => running.forEach((c) => c.kill('SIGKILL')));

export interface HeraldProcess {
  child: ChildProcess;
  url: string;
  port: number;
  exited: Promise<number | null>;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export async function startHerald(role: string, env: Record<string, string>, opts: { args?: string[]; waitForPort?: boolean } = {}): Promise<HeraldProcess> {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'herald.js'), role, ...(opts.args ?? [])], {
    cwd: ROOT,
    env: { HERALD_HTTP_PORT: '0', HERALD_PRINT_PORT: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => { running.delete(child); resolve(code); }));
  let port = 0;
  if (opts.waitForPort !== false) {
    port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`herald ${role} did not start:\n${out}`)), 30_000);
      child.stdout!.on('data', () => {
        const m = /listening (\d+)/.exec(out);
        if (m) { clearTimeout(timer); resolve(Number(m[1])); }
      });
      void exited.then((code) => { clearTimeout(timer); reject(new Error(`herald ${role} exited ${code}:\n${out}`)); });
    });
  }
  return {
    child,
    port,
    url: `http://127.0.0.1:${port}`,
    exited,
    output: () => out,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
