// Benchmark: the lean transport alone against bench/sink answering after a set delay with a set
// number of streams a connection (issue 37: "connections that follow the round trip"). Messages
// go in 500-device chunks, `--chunks` at once, like a sender with that concurrency; printed: the
// rate, the connections the pool opened, and the CPU of this process per message. The sink's
// delay, not the CPU, is what a capped pool shows; bench/delivery measures the whole sender.
//
//   npx tsx bench/apns/round-trip.ts [--n 100000] [--delay 100] [--sink-streams 500] [--chunks 8] [--connections 2,16]
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { generateApnsKeyPair } from '../../apns-sim/index.js';
import { createLeanApnsClient } from '../../core/apns/transport.js';
import { startGoSink } from '../sink/launch.js';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '100000' },
    delay: { type: 'string', default: '100' },
    'sink-streams': { type: 'string', default: '500' },
    chunks: { type: 'string', default: '8' },
    connections: { type: 'string', default: '2,16' },
  },
});
const N = Number(values.n);
const CHUNK = 500;
const PAYLOAD = JSON.stringify({ aps: { alert: { title: 'Herald', body: 'Your order has shipped and will arrive tomorrow.' }, sound: 'default' } });

const sink = await startGoSink({ maxStreams: Number(values['sink-streams']), delayMs: Number(values.delay) });
const ca = await readFile(sink.caFile, 'utf8');
const key = generateApnsKeyPair();
for (const connections of values.connections!.split(',').map(Number)) {
  const client = createLeanApnsClient({ credentials: { kind: 'token', keyP8: key.privateKeyP8, keyId: key.keyId, teamId: 'BENCHTEAM1' }, topic: 'com.example.bench', environment: 'production', url: sink.url, ca }, { connections });
  let next = 0;
  let ok = 0;
  const other: Record<string, number> = {};
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: Number(values.chunks) }, async () => {
    while (next < N) {
      const from = next;
      next += CHUNK;
      const chunk = Array.from({ length: Math.min(CHUNK, N - from) }, (_, i) => ({ token: (from + i).toString(16).padStart(64, '0'), payload: PAYLOAD }));
      for (const r of await client.send(chunk)) {
        if (r.status === 200) ok++;
        else other[`${r.status} ${r.reason}`] = (other[`${r.status} ${r.reason}`] ?? 0) + 1;
      }
    }
  }));
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  console.log(`max ${connections} connections: ${ok}/${N} answered 200 in ${seconds.toFixed(1)} s = ${(ok / seconds).toFixed(0)}/s; opened ${client.pool().open}; client CPU ${(((cpu.user + cpu.system) / N)).toFixed(1)} µs/message${Object.keys(other).length ? `; not 200: ${JSON.stringify(other)}` : ''}`);
  await client.close();
}
await sink.close();
