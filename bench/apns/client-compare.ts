// Benchmark: @parse/node-apn's MultiProvider vs the lean transport (core/apns), same
// simulator (own process, token auth with signature check, no payload retention), same number
// of connections, messages fed in 500-device chunks like the sender does.
//
//   npx tsx bench/apns/client-compare.ts [--n 50000] [--connections 2] [--streams 500] [--chunks 4] [--rounds 3]
//
// Prints notifications/s for each client and round; also the h2load command for the ceiling.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir, cpus } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import apn from '@parse/node-apn';
import { generateApnsKeyPair } from '../../apns-sim/index.js';
import { createLeanApnsClient as createApnsClient, type ApnsMessage } from '../../core/apns/index.js';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '50000' },
    connections: { type: 'string', default: '2' },
    streams: { type: 'string', default: '500' },
    chunks: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '3' },
    only: { type: 'string' },
  },
});
const N = Number(values.n);
const CONNECTIONS = Number(values.connections);
const STREAMS = Number(values.streams);
const CHUNKS_IN_FLIGHT = Number(values.chunks);
const ROUNDS = Number(values.rounds);
const CHUNK = 500;
const TOPIC = 'com.example.bench';
const TEAM = 'BENCHTEAM1';
const PAYLOAD = JSON.stringify({ aps: { alert: { title: 'Herald', body: 'Your order has shipped and will arrive tomorrow.' }, sound: 'default' }, custom: { i: 'a1b2c3' } });

const dir = await mkdtemp(join(tmpdir(), 'herald-apns-bench-'));
const key = generateApnsKeyPair();
const keyFile = join(dir, `AuthKey_${key.keyId}.p8`);
await writeFile(keyFile, key.privateKeyP8);

async function startSim(args: string[]): Promise<{ child: ChildProcess; url: string; port: number; caFile: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'sim-process.ts'), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`simulator exited with ${code}`)));
  });
  return { child, ...JSON.parse(line) };
}

const sim = await startSim(['--port', '0', '--control-port', '0', '--cert-dir', join(dir, 'certs'), '--key', `${key.keyId}:${TEAM}:${keyFile}`, '--max-deliveries', '0', '--track-tokens', 'false']);
const ca = await readFile(sim.caFile, 'utf8');
const tokens = Array.from({ length: N }, (_, i) => i.toString(16).padStart(64, '0'));

/** user+system CPU seconds of a process, from /proc (Linux). */
async function cpuSecondsOf(pid: number): Promise<number> {
  try {
    const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/** Feeds `tokens` in 500-device chunks, CHUNKS_IN_FLIGHT at a time; returns ok count. */
async function drive(sendChunk: (chunk: string[]) => Promise<number>, list: string[]): Promise<number> {
  let next = 0;
  let ok = 0;
  async function worker(): Promise<void> {
    while (next < list.length) {
      const chunk = list.slice(next, next + CHUNK);
      next += CHUNK;
      const answered = await sendChunk(chunk);
      ok += answered;
    }
  }
  await Promise.all(Array.from({ length: CHUNKS_IN_FLIGHT }, worker));
  return ok;
}

async function measure(name: string, sendChunk: (chunk: string[]) => Promise<number>): Promise<number> {
  await drive(sendChunk, tokens.slice(0, 2000)); // warm-up: connections, JIT
  const simCpu0 = await cpuSecondsOf(sim.child.pid!);
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const ok = await drive(sendChunk, tokens);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  const simCpu = (await cpuSecondsOf(sim.child.pid!)) - simCpu0;
  const rate = N / seconds;
  console.log(
    `${name.padEnd(15)} ${N} sent, ${ok} ok, ${seconds.toFixed(2)} s, ${Math.round(rate)} notifications/s ` +
      `(client CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s, simulator CPU ${simCpu.toFixed(2)} s)`,
  );
  if (ok !== N) throw new Error(`${name}: only ${ok} of ${N} answered 200`);
  return rate;
}

async function nodeApn(): Promise<number> {
  const provider = new apn.MultiProvider({
    clientCount: CONNECTIONS,
    token: { key: key.privateKeyP8, keyId: key.keyId, teamId: TEAM },
    address: '127.0.0.1',
    port: sim.port,
    ca: [ca],
    production: false,
    connectionRetryLimit: 0,
  });
  const note = new apn.Notification();
  note.rawPayload = JSON.parse(PAYLOAD);
  note.topic = TOPIC;
  note.pushType = 'alert';
  note.priority = 10;
  try {
    let shown = false;
    return await measure('@parse/node-apn', async (chunk) => {
      const r = await provider.send(note, chunk);
      if (r.failed.length && !shown) {
        shown = true;
        console.log('node-apn failure sample:', r.failed.length, JSON.stringify(r.failed[0]), String((r.failed[0] as { error?: Error }).error));
      }
      return r.sent.length;
    });
  } finally {
    await provider.shutdown();
  }
}

async function ours(): Promise<number> {
  const client = createApnsClient(
    { credentials: { kind: 'token', keyP8: key.privateKeyP8, keyId: key.keyId, teamId: TEAM }, topic: TOPIC, environment: 'sandbox', url: sim.url, ca },
    { connections: CONNECTIONS, maxConcurrentStreams: STREAMS },
  );
  try {
    return await measure('lean', async (chunk) => {
      const messages: ApnsMessage[] = chunk.map((token) => ({ token, payload: PAYLOAD, pushType: 'alert', priority: 10 }));
      return (await client.send(messages)).filter((r) => r.status === 200).length;
    });
  } finally {
    await client.close();
  }
}

console.log(`machine: ${cpus().length} cores (${cpus()[0]?.model}), node ${process.version}; simulator in its own process`);
console.log(`n=${N} connections=${CONNECTIONS} streams/connection=${STREAMS} chunks of ${CHUNK} x ${CHUNKS_IN_FLIGHT} in flight`);
const results: Record<string, number[]> = { '@parse/node-apn': [], 'lean': [] };
try {
  for (let round = 1; round <= ROUNDS; round++) {
    if (values.only !== 'ours') results['@parse/node-apn'].push(await nodeApn());
    if (values.only !== 'node-apn') results['lean'].push(await ours());
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  for (const [name, rates] of Object.entries(results)) {
    if (rates.length) console.log(`median ${name.padEnd(16)} ${Math.round(median(rates))} notifications/s`);
  }
} finally {
  sim.child.kill('SIGTERM');
}
