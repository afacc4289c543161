// `herald <role>` as a child process for the benchmarks: started from this checkout, killed when
// the benchmark exits, and resolved on the first stdout line that matches (its ready line).
import { spawn, type ChildProcess } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const children: ChildProcess[] = [];
process.on('exit', () => children.forEach((c) => c.kill('SIGKILL')));

export interface SpawnOptions {
  /** Flags for node itself (e.g. --cpu-prof). */
  nodeArgs?: string[];
  /** Echo the child's warning and error log lines to stderr. */
  echoWarnings?: boolean;
}

export function spawnHerald(args: string[], env: Record<string, string>, match: RegExp, opts: SpawnOptions = {}): Promise<{ child: ChildProcess; line: string }> {
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), join(ROOT, 'bin', 'herald.js'), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', HERALD_PRINT_PORT: '1', HERALD_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (match.test(line)) resolve({ child, line });
      else if (opts.echoWarnings && /"level":(40|50|60)/.test(line)) process.stderr.write(`${args[0]}: ${line.slice(0, 400)}\n`);
    });
    child.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code}`)));
  });
}
