// Event streams benchmark (issue 28 "Measure"): a send to N devices through a real api and sender
// process (the Go sink standing in for Apple, as bench/delivery/run.ts), the app's events to a
// local webhook receiver (bench/events/receiver.ts, a process of its own) with every kind, and
// with --stream on the NATS JetStream stream too.
//
//   npx tsx bench/events/run.ts [--devices 1000000] [--mode e2e|ab] [--rounds 2]
//        [--outage-seconds 0] [--stream] [--concurrency 8] [--connections 2] [--wait-minutes 40]
//
// e2e: time from the send's last chunk to the last event received, events per second (from the
//   first event to the last), sender CPU per device, duplicates counted by event.id, the sender's
//   RSS sampled every second; --outage-seconds N stops the receiver (connections refused) from
//   the moment the send is made for N seconds.
// ab: sender CPU per device with events off and on, interleaved (off, on, on, off, …) so a load
//   on the shared machine falls on both alike. "on" counts the sender's CPU until the last event
//   was received (the dispatcher runs in the sender), and also at the last chunk (recording only).
//
// Needs PostgreSQL, Redis and NATS on their usual ports; never part of `make test`.
import { fork, type ChildProcess } from 'node:child_process';
import { parseArgs } from 'node:util';
import { isFinalStatus } from '../../core/send-model/states.js';
import { createPool, type Pool } from '../../core/store/db.js';
import { connectBus, deleteStreams } from '../../core/bus/jetstream.js';
import { storeDestinations } from '../../core/events/destinations.js';
import { appEventsFilter } from '../../core/events/stream.js';
import { startGoSink } from '../sink/launch.js';
import { spawnHerald } from '../support/herald-process.js';
import { benchDatabaseUrl, cpuSeconds, prepareBenchApp, rssMiB } from '../support/bench-app.js';

const { values } = parseArgs({
  options: {
    devices: { type: 'string', default: '1000000' },
    mode: { type: 'string', default: 'e2e' },
    rounds: { type: 'string', default: '2' },
    'outage-seconds': { type: 'string', default: '0' },
    stream: { type: 'boolean', default: false },
    concurrency: { type: 'string', default: '8' },
    connections: { type: 'string', default: '2' },
    streams: { type: 'string', default: '1000' },
    'wait-minutes': { type: 'string', default: '40' },
  },
});
const DEVICES = Number(values.devices);
const DB = `herald_bench_events_${DEVICES}`;
const dbUrl = benchDatabaseUrl(DB);
const PREFIX = `BENCHEV${Date.now().toString(36)}`;
const NATS_URL = process.env.HERALD_NATS_URL ?? 'nats://127.0.0.1:4222';
const WHSEC = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;

interface Tally { events: number; duplicates: number; requests: number; firstAt: number; lastNewAt: number }
interface Stats { hooks: Tally; stream: Tally; rssMiB: number }

/** The receiver process and a promise-returning IPC call. */
async function startReceiver(): Promise<{ child: ChildProcess; port: number; call: (cmd: Record<string, unknown>) => Promise<any> }> {
  const child = fork(new URL('./receiver.ts', import.meta.url));
  process.on('exit', () => child.kill('SIGKILL'));
  child.once('exit', (code) => {
    console.error(`the receiver exited (${code})`);
    process.exit(1);
  });
  const next = () => new Promise<any>((resolve) => child.once('message', resolve));
  const { port } = await next();
  const call = (cmd: Record<string, unknown>) => {
    const answer = next();
    child.send(cmd);
    return answer;
  };
  return { child, port, call };
}

const { appId, apiKey } = await prepareBenchApp(DB, DEVICES);
const sink = await startGoSink({ maxStreams: 1000 });
const receiver = await startReceiver();
// The install's streams exist before the receiver's consumer is added (the processes make them too).
const bus = await connectBus(NATS_URL, PREFIX);
if (values.stream) await receiver.call({ cmd: 'stream', natsUrl: NATS_URL, stream: bus.names.eventStream, subject: bus.names.subject(appEventsFilter(appId)) });

async function setEvents(pool: Pool, on: boolean): Promise<void> {
  await pool.query('DELETE FROM event_records WHERE app_id = $1', [appId]);
  const hook = { name: 'bench', url: `http://127.0.0.1:${receiver.port}/`, secretRef: { name: 'bench', key: 'bench' }, secret: WHSEC };
  await storeDestinations(pool, appId, on ? [hook] : [], { stream: on && values.stream });
}

async function runOnce(on: boolean, outageSeconds: number): Promise<Record<string, number | string>> {
  const pool = createPool(dbUrl, { max: 2 });
  await setEvents(pool, on);
  const env = {
    HERALD_DATABASE_URL: dbUrl,
    HERALD_STREAM_PREFIX: PREFIX,
    HERALD_REDIS_PREFIX: `${PREFIX.toLowerCase()}:`,
    HERALD_RATE_LIMITS: 'off',
    HERALD_HTTP_HOST: '127.0.0.1',
    HERALD_HTTP_PORT: '0',
    HERALD_METRICS_PORT: '0',
    HERALD_APNS_URL: sink.url,
    HERALD_APNS_CA_FILE: sink.caFile,
    HERALD_SENDER_CONCURRENCY: values.concurrency!,
    HERALD_APNS_CONNECTIONS: values.connections!,
    HERALD_APNS_MAX_STREAMS: values.streams!,
    HERALD_EVENT_HTTP_HOSTS: '127.0.0.1',
  };
  const api = await spawnHerald(['api'], env, /^listening \d+/);
  const port = Number(api.line.split(' ')[1]);
  // HERALD_BENCH_PROFILE=DIR writes a V8 CPU profile of the sender there (where its time goes), as bench/delivery does.
  const nodeArgs = process.env.HERALD_BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.HERALD_BENCH_PROFILE}`] : [];
  const sender = await spawnHerald(['sender'], env, /^metrics \d+/, { echoWarnings: process.env.HERALD_BENCH_ECHO === '1', nodeArgs });
  const pid = sender.child.pid!;
  await new Promise((r) => setTimeout(r, 1000));
  const before = await receiver.call({ cmd: 'stats' }) as Stats;
  const rss: number[] = [];
  const sampler = setInterval(() => rss.push(rssMiB(pid)), 1000);
  const cpu0 = cpuSeconds(pid);
  let upAgain: Promise<unknown> = Promise.resolve();
  if (outageSeconds > 0) {
    await receiver.call({ cmd: 'down' });
    upAgain = new Promise((r) => setTimeout(r, outageSeconds * 1000)).then(() => receiver.call({ cmd: 'up' }));
  }
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/notifications`, {
    method: 'POST',
    headers: { authorization: `Key ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ app_id: appId, included_segments: ['Subscribed Users'], contents: { en: 'Your order has shipped', fr: 'Votre commande est partie' } }),
  });
  const answeredAt = Date.now();
  const body = (await res.json()) as { id: number; estimate: number };
  if (res.status !== 202) throw new Error(`send answered ${res.status} ${JSON.stringify(body)}`);
  let row: Record<string, any>;
  for (;;) {
    row = (await pool.query('SELECT status, sent, failed FROM sends WHERE id = $1', [body.id])).rows[0];
    if (isFinalStatus(row.status)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const cpuAtLastChunk = cpuSeconds(pid) - cpu0;
  const lastChunk = Number((await pool.query(`SELECT extract(epoch FROM max(finished_at)) * 1000 AS ms FROM send_chunks WHERE send_id = $1`, [body.id])).rows[0].ms);
  const expected = row.sent + row.failed + 2; // one per device, notification.created and .finished
  let stats = await receiver.call({ cmd: 'stats' }) as Stats;
  const got = (s: Stats) => ({ hooks: s.hooks.events - before.hooks.events, stream: s.stream.events - before.stream.events });
  if (on) {
    const deadline = Date.now() + Number(values['wait-minutes']) * 60_000;
    for (;;) {
      await upAgain;
      stats = await receiver.call({ cmd: 'stats' }) as Stats;
      const g = got(stats);
      if (g.hooks >= expected && (!values.stream || g.stream >= expected)) break;
      if (Date.now() > deadline) {
        console.error(`gave up waiting: ${JSON.stringify(g)} of ${expected}`);
        break;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  const cpuAtEnd = cpuSeconds(pid) - cpu0;
  clearInterval(sampler);
  await pool.end();
  for (const p of [api, sender]) p.child.kill('SIGTERM');
  await Promise.all([api, sender].map((p) => new Promise((r) => (p.child.exitCode !== null ? r(null) : p.child.once('exit', r)))));
  const g = got(stats);
  const quarter = (i: number) => rss.slice(Math.floor((i * rss.length) / 4), Math.max(Math.floor(((i + 1) * rss.length) / 4), Math.floor((i * rss.length) / 4) + 1));
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return {
    events: on ? 'on' : 'off',
    outageSeconds,
    devices: body.estimate,
    sent: row.sent,
    deliverySeconds: +((lastChunk - answeredAt) / 1000).toFixed(1),
    expectedEvents: on ? expected : 0,
    hookEvents: g.hooks,
    hookDuplicates: stats.hooks.duplicates - before.hooks.duplicates,
    hookRequests: stats.hooks.requests - before.hooks.requests,
    lastEventAfterLastChunkSeconds: on ? +((stats.hooks.lastNewAt - lastChunk) / 1000).toFixed(1) : 0,
    hookEventsPerSecond: on ? Math.round(g.hooks / ((stats.hooks.lastNewAt - Math.max(stats.hooks.firstAt, answeredAt)) / 1000)) : 0,
    ...(values.stream && on ? {
      streamEvents: g.stream,
      streamDuplicates: stats.stream.duplicates - before.stream.duplicates,
      streamLastAfterLastChunkSeconds: +((stats.stream.lastNewAt - lastChunk) / 1000).toFixed(1),
    } : {}),
    cpuUsPerDeviceAtLastChunk: +((1e6 * cpuAtLastChunk) / body.estimate).toFixed(2),
    cpuUsPerDeviceAtEnd: +((1e6 * cpuAtEnd) / body.estimate).toFixed(2),
    rssMiBMin: Math.round(Math.min(...rss)),
    rssMiBMax: Math.round(Math.max(...rss)),
    rssMiBQuarterMedians: [0, 1, 2, 3].map((i) => Math.round(median(quarter(i)))).join('/'),
    samples: rss.length,
  };
}

const results: Array<Record<string, number | string>> = [];
if (values.mode === 'ab') {
  for (let i = 0; i < Number(values.rounds); i++) {
    for (const on of i % 2 === 0 ? [false, true] : [true, false]) {
      const r = await runOnce(on, 0);
      console.log(JSON.stringify(r));
      results.push(r);
    }
  }
  const mean = (on: string, key: string) => {
    const xs = results.filter((r) => r.events === on).map((r) => Number(r[key]));
    return xs.reduce((a, b) => a + b, 0) / xs.length;
  };
  const off = mean('off', 'cpuUsPerDeviceAtLastChunk');
  const onEnd = mean('on', 'cpuUsPerDeviceAtEnd');
  const onChunk = mean('on', 'cpuUsPerDeviceAtLastChunk');
  console.log(`sender CPU per device: off ${off.toFixed(2)} µs; on ${onChunk.toFixed(2)} µs at the last chunk (${((100 * (onChunk - off)) / off).toFixed(1)} %), ${onEnd.toFixed(2)} µs with every event delivered (${((100 * (onEnd - off)) / off).toFixed(1)} %)`);
} else {
  const r = await runOnce(true, Number(values['outage-seconds']));
  console.log(JSON.stringify(r));
}

await deleteStreams(bus.jsm, bus.names);
await bus.close();
await sink.close();
const pool = createPool(dbUrl, { max: 1 });
await pool.query('DELETE FROM sends');
await pool.query('DELETE FROM event_records');
await pool.end();
receiver.child.removeAllListeners('exit');
receiver.child.kill();
process.exit(0);
