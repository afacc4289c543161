// Starts bench/sink (built on demand by build.sh) on a random port with a throw-away server
// certificate from the simulator's PKI; used by bench/delivery and by the transport's tests.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ensureServerCertificate } from '../../apns-sim/index.js';

const HERE = dirname(fileURLToPath(import.meta.url));

export interface GoSinkOptions {
  maxStreams?: number;
  /** Receive window per stream (and, unless connWindow, per connection), in bytes. */
  window?: number;
  connWindow?: number;
  /** Require client certificates signed by this CA. */
  clientCaFile?: string;
  /** Answer each device request after this many ms (Apple's round trip). */
  delayMs?: number;
  /** Count attempts per token (tests). */
  track?: boolean;
  /** Listen on this port (default: a free one). */
  port?: number;
  /** Reuse this certificate directory (a restarted sink keeps its CA). */
  certDir?: string;
}

export interface GoSink {
  certDir: string;
  url: string;
  port: number;
  pid: number;
  caFile: string;
  stats(): Promise<{ requests: number; connections: number; attempts?: Record<string, number> }>;
  close(): Promise<void>;
}

/** The sink's binary path, building it first if needed (a few seconds, minutes on a cold cache). */
export function goSinkBinary(): string {
  const out = execFileSync('bash', [join(HERE, 'build.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  return out.trim().split('\n').pop() as string;
}

export async function startGoSink(opts: GoSinkOptions = {}): Promise<GoSink> {
  const binary = goSinkBinary();
  const certs = await ensureServerCertificate(opts.certDir ?? (await mkdtemp(join(tmpdir(), 'herald-sink-'))));
  const args = ['-addr', `127.0.0.1:${opts.port ?? 0}`, '-cert', certs.certFile, '-key', certs.keyFile, '-max-streams', String(opts.maxStreams ?? 1000)];
  if (opts.window) args.push('-window', String(opts.window), '-conn-window', String(opts.connWindow ?? opts.window));
  if (opts.clientCaFile) args.push('-client-ca', opts.clientCaFile);
  if (opts.track) args.push('-track');
  if (opts.delayMs) args.push('-delay', `${opts.delayMs}ms`);
  const child: ChildProcess = spawn(binary, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`apns-sink exited with ${code}`)));
  });
  const { url, port } = JSON.parse(line) as { url: string; port: number };
  return {
    certDir: dirname(certs.caFile),
    url,
    port,
    pid: child.pid!,
    caFile: certs.caFile,
    async stats() {
      // The sink's own GET /stats, over HTTP/2 (it speaks nothing else).
      const { connect } = await import('node:http2');
      const { readFile } = await import('node:fs/promises');
      const session = connect(url, { ca: await readFile(certs.caFile, 'utf8') });
      try {
        return await new Promise((resolve, reject) => {
          const req = session.request({ ':method': 'GET', ':path': '/stats' });
          let body = '';
          req.setEncoding('utf8');
          req.on('data', (c: string) => (body += c));
          req.on('end', () => resolve(JSON.parse(body)));
          req.on('error', reject);
          req.end();
        });
      } finally {
        session.close();
      }
    },
    async close() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}
