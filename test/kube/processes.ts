// Child processes of the kube test tier: free ports, start with output to a log file, stop
// gracefully then by force, and a last-resort kill when the test process exits so a failed or
// interrupted run never leaves an etcd or kube-apiserver behind.
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';

export interface RunningProcess {
  readonly name: string;
  readonly logFile: string;
  /** Resolves with the exit code (or signal name) when the process ends, for whatever reason. */
  readonly exited: Promise<number | string>;
  hasExited(): boolean;
  stop(): Promise<void>;
  /** The end of the log file, for error messages. */
  logTail(lines?: number): string;
}

const living = new Set<ChildProcess>();
const tempDirs = new Set<string>();
let hooksInstalled = false;

// 'exit' handlers must be synchronous: SIGKILL and rmSync are. Signals do not fire 'exit' by
// themselves, so SIGINT/SIGTERM clean up and then re-raise to keep their default effect.
function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  const cleanUp = (): void => {
    for (const child of living) child.kill('SIGKILL');
    living.clear();
    for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
    tempDirs.clear();
  };
  process.on('exit', cleanUp);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      cleanUp();
      process.kill(process.pid, signal);
    });
  }
}

/** Removes `dir` when the test process exits, unless forgetTempDir was called first. */
export function removeOnExit(dir: string): void {
  installExitHooks();
  tempDirs.add(dir);
}

export function forgetTempDir(dir: string): void {
  tempDirs.delete(dir);
}

/** `count` distinct ports, free at the time of asking: all are held open until each is known,
 * so two of them cannot be the same. Another process could still take one before we bind it;
 * the window is small and a failed start says which port, as envtest does. */
export async function freePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer());
  try {
    return await Promise.all(servers.map((server) => new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
    })));
  } finally {
    await Promise.all(servers.map((server) => new Promise((r) => server.close(r))));
  }
}

export function startProcess(name: string, command: string, args: string[], logFile: string): RunningProcess {
  installExitHooks();
  // Output goes to a file, not a pipe: nobody reads a pipe while tests run and a full pipe
  // would block the apiserver.
  const fd = openSync(logFile, 'a');
  const child = spawn(command, args, { stdio: ['ignore', fd, fd] });
  closeSync(fd);
  living.add(child);
  let done = false;
  const exited = new Promise<number | string>((resolve) => {
    const finish = (result: number | string): void => {
      done = true;
      living.delete(child);
      resolve(result);
    };
    child.once('exit', (code, signal) => finish(code ?? signal ?? 'unknown'));
    child.once('error', (err) => finish(`spawn error: ${err.message}`));
  });

  const logTail = (lines = 30): string => {
    try {
      return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  };

  const stop = async (): Promise<void> => {
    if (done) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };

  return { name, logFile, exited, hasExited: () => done, stop, logTail };
}
