// End-to-end harness: starts `herald` roles (and a private nats-server when a test must restart
// it) as real processes on loopback, waits for their ready line, and always kills them — in an
// after hook, and on the test process's exit should that hook never run.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { createServer } from 'node:net';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const HERALD = join(ROOT, 'bin', 'herald.js');
const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export interface Proc {
  child: ChildProcess;
  /** The ready line's value: the api's port, or the sender's metrics port. */
  port: number;
  /** Output so far (stderr + stdout), for failure messages. */
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

function track(child: ChildProcess): { output: () => string } {
  live.add(child);
  child.once('exit', () => live.delete(child));
  let out = '';
  const keep = (b: Buffer) => {
    out += b.toString();
    if (out.length > 200_000) out = out.slice(-100_000);
  };
  child.stderr?.on('data', keep);
  child.stdout?.on('data', keep);
  return { output: () => out };
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Starts `herald <role>` and resolves when it prints `<readyWord> <port>`. */
export async function startRole(role: 'api' | 'sender' | 'dev', env: Record<string, string>, timeoutMs = 60_000): Promise<Proc> {
  const child = spawn(process.execPath, [HERALD, role], {
    cwd: ROOT,
    env: { ...env, HERALD_PRINT_PORT: '1', HERALD_HTTP_HOST: '127.0.0.1', HERALD_HTTP_PORT: '0', HERALD_METRICS_PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const { output } = track(child);
  const word = role === 'sender' ? 'metrics' : 'listening';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`herald ${role} not ready in ${timeoutMs} ms:\n${output()}`)), timeoutMs);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = new RegExp(`^${word} (\\d+)$`).exec(line.trim());
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`herald ${role} exited with ${code}:\n${output()}`));
    });
  });
  return {
    child,
    port,
    output,
    async kill(signal = 'SIGTERM') {
      child.kill(signal);
      return exited(child);
    },
  };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/** A private nats-server with JetStream on a random port and a temporary store, restartable. */
export class PrivateNats {
  private child: ChildProcess | undefined;
  private constructor(readonly port: number, readonly storeDir: string) {}

  static async start(): Promise<PrivateNats> {
    const nats = new PrivateNats(await freePort(), await mkdtemp(join(tmpdir(), 'herald-nats-')));
    await nats.up();
    return nats;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  async up(): Promise<void> {
    const child = spawn('/usr/sbin/nats-server', ['-a', '127.0.0.1', '-p', String(this.port), '-js', '-sd', this.storeDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    const { output } = track(child);
    this.child = child;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`nats-server not ready:\n${output()}`)), 20_000);
      const check = () => {
        if (/Server is ready/.test(output())) {
          clearTimeout(timer);
          resolve();
        } else if (child.exitCode !== null) {
          clearTimeout(timer);
          reject(new Error(`nats-server exited:\n${output()}`));
        } else setTimeout(check, 50);
      };
      check();
    });
  }

  async down(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child) return;
    child.kill('SIGTERM');
    await exited(child);
  }

  async close(): Promise<void> {
    await this.down();
    await rm(this.storeDir, { recursive: true, force: true });
  }
}

/** A tiny JSON client for the api processes. */
export function apiClient(port: number, key: string) {
  const base = `http://127.0.0.1:${port}`;
  return {
    async post(path: string, body: unknown, headers: Record<string, string> = {}) {
      const res = await fetch(base + path, { method: 'POST', headers: { authorization: `Key ${key}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as any };
    },
    async get(path: string) {
      const res = await fetch(base + path, { headers: { authorization: `Key ${key}` } });
      return { status: res.status, body: (await res.json()) as any };
    },
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One unlabelled series of a process's /metrics (a sender's or controller's metrics port, the api's port); NaN when absent. */
export async function metric(proc: Proc, name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${proc.port}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.slice(name.length + 1)) : NaN;
}
