// Delivery benchmark: N subscribed devices, one segment send, measured from the api's answer to
// the last chunk recorded, with 1 and with 2 sender processes. The gateway is bench/sink (a Go
// x/net/http2 sink that answers 200, built on demand) in its own process, so what is measured
// is the sender; `--gateway URL --gateway-ca FILE` points the senders at any other sink
// (its CPU is then not measured). Beside it, the sink's ceiling measured with h2load.
// `--proxy`: the api and senders reach the sink through a CONNECT proxy in a process of its own
// (HTTPS_PROXY; the sink's name, sink.herald.test, resolves only there), its CPU printed apart.
// `--fcm-gateway URL --fcm-gateway-ca FILE --fcm-service-account FILE`: the devices are Android
// installs of an App with that service account (its token_uri as the file says), delivered through
// that FCM stand-in (e.g. `herald fcm-sim`; `--fcm-gateway-pid` measures its CPU), with the same
// JSON lines; the ceiling is then h2load's against its messages:send. `--fcm-share 0.5`: half the
// devices Android (by seq), half iOS to the Go sink, one segment send keeping both gateways busy.
//
//   npx tsx bench/delivery/run.ts [--devices 1000000] [--senders 1,2] [--concurrency 8]
//        [--connections 2] [--streams 1000] [--h2load-n 300000] [--keep-db]
//        [--gateway URL --gateway-ca FILE] [--client lean|node-apn] [--events] [--proxy]
//        [--sink-delay MS] [--sink-streams 1000]
//        [--fcm-gateway URL --fcm-gateway-ca FILE --fcm-service-account FILE [--fcm-gateway-pid PID] [--fcm-connections 4] [--fcm-share 1]]
//
// `--sink-delay MS`: the sink answers each device after MS (Apple's 40–100 ms round trip);
// `--sink-streams N`: the streams it allows a connection (Apple: about 500). `--connections`
// (HERALD_APNS_CONNECTIONS, the most a sender opens per app) is left to Herald's default unless given.
//
// Needs PostgreSQL, Redis and NATS on their usual ports (as the tests do). Prints one line per
// run and a summary; never part of `make test`.
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isFinalStatus } from '../../core/send-model/states.js';
import { parseArgs } from 'node:util';
import { createPool } from '../../core/store/db.js';
import { connectBus, deleteStreams } from '../../core/bus/jetstream.js';
import { generateApnsKeyPair, randomAppleId } from '../../apns-sim/index.js';
import { benchDatabaseUrl, cpuSeconds, prepareBenchApp } from '../support/bench-app.js';
import { ProviderTokenSigner } from '../../core/apns/index.js';
import { startGoSink } from '../sink/launch.js';
import { spawnHerald } from '../support/herald-process.js';
import { setFcmCredentials } from '../../core/fcm/credentials-store.js';
import { FcmAccessTokens } from '../../core/fcm/access-token.js';

const { values } = parseArgs({
  options: {
    devices: { type: 'string', default: '1000000' },
    senders: { type: 'string', default: '1,2' },
    concurrency: { type: 'string', default: '8' },
    connections: { type: 'string' },
    'sink-delay': { type: 'string', default: '0' },
    'sink-streams': { type: 'string', default: '1000' },
    streams: { type: 'string', default: '1000' },
    'h2load-n': { type: 'string', default: '300000' },
    'h2load-c': { type: 'string', default: '2' },
    'keep-db': { type: 'boolean', default: false },
    gateway: { type: 'string' },
    'gateway-ca': { type: 'string' },
    client: { type: 'string', default: 'lean' },
    events: { type: 'boolean', default: false },
    proxy: { type: 'boolean', default: false },
    'fcm-gateway': { type: 'string' },
    'fcm-gateway-ca': { type: 'string' },
    'fcm-service-account': { type: 'string' },
    'fcm-gateway-pid': { type: 'string' },
    'fcm-connections': { type: 'string', default: '4' },
    'fcm-share': { type: 'string', default: '1' },
  },
});
const FCM = values['fcm-gateway'];
/** The part of the devices that are Android (by seq, every device alike otherwise); the rest go to the APNs sink, both at once. */
const FCM_PERCENT = Math.round(Number(values['fcm-share']) * 100);
if (!(FCM_PERCENT >= 0 && FCM_PERCENT <= 100)) throw new Error('--fcm-share must be between 0 and 1');
if (FCM && !values['fcm-service-account']) throw new Error('--fcm-gateway needs --fcm-service-account FILE');
const DEVICES = Number(values.devices);
const DB = FCM ? `herald_bench_delivery_android_${DEVICES}` : `herald_bench_delivery_${DEVICES}`;
const dbUrl = benchDatabaseUrl(DB);
const PREFIX = `BENCH${Date.now().toString(36)}`;

async function prepareDatabase(): Promise<{ appId: string; apiKey: string }> {
  // --events: the app has an event destination, so every chunk records its devices' events
  // (core/events/record.ts); without it, none. The destination's name does not resolve: the
  // sender's dispatcher tries a batch now and then (backing off), so this measures the recording.
  return prepareBenchApp(DB, DEVICES, async (pool, appId) => {
    await pool.query('DELETE FROM event_destinations WHERE app_id = $1', [appId]);
    if (values.events) await pool.query(`INSERT INTO event_destinations (app_id, name, url, secret) VALUES ($1, 'bench', 'https://events.invalid/', '\\x00')`, [appId]);
    if (FCM) {
      // Android: the App's service account, and (once the devices are in) every install an Android one.
      const sa = JSON.parse(await readFile(values['fcm-service-account']!, 'utf8')) as Record<string, string>;
      await setFcmCredentials(pool, appId, { projectId: sa.project_id, clientEmail: sa.client_email, privateKey: sa.private_key, tokenUri: sa.token_uri });
    }
  }).then(async (app) => {
    if (FCM) {
      const pool = createPool(dbUrl, { max: 1, statementTimeoutMs: 0 });
      await pool.query(
        "UPDATE subscriptions SET platform = CASE WHEN seq % 100 < $2 THEN 'android' ELSE 'ios' END WHERE app_id = $1 AND platform <> CASE WHEN seq % 100 < $2 THEN 'android' ELSE 'ios' END",
        [app.appId, FCM_PERCENT],
      );
      await pool.end();
    }
    return app;
  });
}

/** --proxy: the CONNECT proxy's process, the sink's name mapped to its address there only. */
async function startProxy(sinkUrl: string): Promise<{ url: string; gateway: string; pid: number }> {
  const sink = new URL(sinkUrl);
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '../support/connect-proxy-process.ts')], {
    env: { ...process.env, PROXY_HOSTS: JSON.stringify({ 'sink.herald.test': sink.hostname }) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  process.on('exit', () => child.kill('SIGKILL'));
  const port = await new Promise<number>((resolve) => createInterface({ input: child.stdout! }).on('line', (l) => /^proxy \d+$/.test(l) && resolve(Number(l.split(' ')[1]))));
  return { url: `http://127.0.0.1:${port}`, gateway: `https://sink.herald.test:${sink.port}`, pid: child.pid! };
}

async function runOnce(senders: number, sim: { url: string; caFile: string; pid?: number }, appId: string, apiKey: string): Promise<Record<string, number>> {
  const env: Record<string, string> = {
    HERALD_DATABASE_URL: dbUrl,
    HERALD_STREAM_PREFIX: PREFIX,
    HERALD_REDIS_PREFIX: `${PREFIX.toLowerCase()}:`,
    HERALD_RATE_LIMITS: 'off',
    HERALD_HTTP_HOST: '127.0.0.1',
    HERALD_HTTP_PORT: '0',
    HERALD_METRICS_PORT: '0',
    HERALD_APNS_URL: sim.url,
    HERALD_APNS_CA_FILE: sim.caFile,
    HERALD_SENDER_CONCURRENCY: values.concurrency!,
    ...(values.connections ? { HERALD_APNS_CONNECTIONS: values.connections } : {}),
    HERALD_APNS_MAX_STREAMS: values.streams!,
    HERALD_APNS_CLIENT: values.client!,
    ...(FCM ? { HERALD_FCM_URL: FCM, HERALD_FCM_CA_FILE: values['fcm-gateway-ca'] ?? '', HERALD_FCM_CONNECTIONS: values['fcm-connections']! } : {}),
    ...(proxy ? { HTTPS_PROXY: proxy.url, HERALD_APNS_URL: proxy.gateway } : {}),
  };
  const api = await spawnHerald(['api'], env, /^listening \d+/);
  const port = Number(api.line.split(' ')[1]);
  // HERALD_BENCH_PROFILE=DIR writes a V8 CPU profile of each sender there (where the time goes).
  const prof = process.env.HERALD_BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.HERALD_BENCH_PROFILE}`] : [];
  const procs = await Promise.all(Array.from({ length: senders }, () => spawnHerald(['sender'], env, /^metrics \d+/, { nodeArgs: prof })));
  const simCpuBefore = sim.pid ? cpuSeconds(sim.pid) : Number.NaN;
  const proxyCpuBefore = proxy ? cpuSeconds(proxy.pid) : Number.NaN;
  await new Promise((r) => setTimeout(r, 1000));
  const pool = createPool(dbUrl, { max: 2 });
  const cpuBefore = procs.map((p) => cpuSeconds(p.child.pid!));
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/notifications`, {
    method: 'POST',
    headers: { authorization: `Key ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ app_id: appId, included_segments: ['Subscribed Users'], contents: { en: 'Your order has shipped', fr: 'Votre commande est partie', de: 'Ihre Bestellung ist unterwegs', 'pt-BR': 'Seu pedido foi enviado' } }),
  });
  const answeredAt = Date.now();
  const body = (await res.json()) as { id: number; status: string; estimate: number };
  if (res.status !== 202) throw new Error(`send answered ${res.status} ${JSON.stringify(body)}`);
  let row: Record<string, any>;
  for (;;) {
    row = (await pool.query('SELECT status, sent, failed, skipped, chunks_done, chunks_total FROM sends WHERE id = $1', [body.id])).rows[0];
    if (isFinalStatus(row.status)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const last = (await pool.query(`SELECT extract(epoch FROM max(finished_at)) * 1000 AS ms FROM send_chunks WHERE send_id = $1`, [body.id])).rows[0].ms;
  const seconds = (Number(last) - answeredAt) / 1000;
  const cpu = procs.map((p, i) => cpuSeconds(p.child.pid!) - cpuBefore[i]);
  const simCpu = sim.pid ? cpuSeconds(sim.pid) - simCpuBefore : Number.NaN;
  const proxyCpu = proxy ? cpuSeconds(proxy.pid) - proxyCpuBefore : Number.NaN;
  await pool.end();
  for (const p of [api, ...procs]) p.child.kill('SIGTERM');
  await Promise.all([api, ...procs].map((p) => new Promise((r) => (p.child.exitCode !== null ? r(null) : p.child.once('exit', r)))));
  return { senders, devices: body.estimate, sent: row.sent, failed: row.failed, seconds, perSecond: row.sent / seconds, senderCpuSeconds: cpu.reduce((a, b) => a + b, 0), sinkCpuSeconds: simCpu, proxyCpuSeconds: proxyCpu };
}

/** h2load against the FCM stand-in's messages:send, with an access token of the service account. */
async function fcmCeiling(): Promise<{ perSecond: number; raw: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'herald-h2load-'));
  const payload = join(dir, 'message.json');
  const sa = JSON.parse(await readFile(values['fcm-service-account']!, 'utf8')) as Record<string, string>;
  await writeFile(payload, JSON.stringify({ message: { token: 'ab'.repeat(32), notification: { body: 'Your order has shipped' }, android: { priority: 'HIGH' }, data: { custom: '{"i":"1"}' } } }));
  const ca = values['fcm-gateway-ca'] ? await readFile(values['fcm-gateway-ca'], 'utf8') : undefined;
  const token = await new FcmAccessTokens({ projectId: sa.project_id, clientEmail: sa.client_email, privateKey: sa.private_key, tokenUri: sa.token_uri }, { ca }).current();
  const args = ['-n', values['h2load-n']!, '-c', values['h2load-c']!, '-m', '100', '-d', payload, '-H', 'content-type: application/json', '-H', `authorization: Bearer ${token.value}`, `${FCM}/v1/projects/${sa.project_id}/messages:send`];
  const out = spawnSync('h2load', args, { encoding: 'utf8' });
  const m = /finished in [\d.]+m?s, ([\d.]+) req\/s/.exec(out.stdout);
  return { perSecond: m ? Number(m[1]) : Number.NaN, raw: out.stdout.split('\n').filter((l) => /finished in|status codes|requests:/.test(l)).join(' | ') };
}

async function ceiling(sim: { port: number }): Promise<{ perSecond: number; raw: string }> {
  if (FCM) return fcmCeiling();
  const dir = await mkdtemp(join(tmpdir(), 'herald-h2load-'));
  const payload = join(dir, 'payload.json');
  await writeFile(payload, JSON.stringify({ aps: { alert: { body: 'Your order has shipped' }, sound: 'default' }, custom: { i: '1' } }));
  const k = generateApnsKeyPair();
  const jwt = new ProviderTokenSigner(k.privateKeyP8, k.keyId, randomAppleId()).current().authorization;
  const n = values['h2load-n']!;
  const args = ['-n', n, '-c', values['h2load-c']!, '-m', values.streams!, '-d', payload, '-H', 'apns-topic: com.example.bench', '-H', 'apns-push-type: alert', '-H', `authorization: ${jwt}`,
    `https://127.0.0.1:${sim.port}/3/device/${'ab'.repeat(32)}`];
  const out = spawnSync('h2load', args, { encoding: 'utf8' });
  const m = /finished in [\d.]+m?s, ([\d.]+) req\/s/.exec(out.stdout);
  return { perSecond: m ? Number(m[1]) : Number.NaN, raw: out.stdout.split('\n').filter((l) => /finished in|status codes|requests:/.test(l)).join(' | ') };
}

const { appId, apiKey } = await prepareDatabase();
const goSink = values.gateway || (FCM && FCM_PERCENT === 100) ? undefined : await startGoSink({ maxStreams: Number(values['sink-streams']), delayMs: Number(values['sink-delay']) });
// All Android: the APNs gateway is unused; the FCM stand-in's CPU is the sink's. Mixed: the Go
// sink's CPU is the sink's (the stand-in's is not read).
const sim = goSink ?? (FCM
  ? { url: values.gateway ?? 'https://127.0.0.1:9', port: 9, caFile: values['gateway-ca'] ?? '', pid: values['fcm-gateway-pid'] ? Number(values['fcm-gateway-pid']) : undefined }
  : { url: values.gateway!, port: Number(new URL(values.gateway!).port || 443), caFile: values['gateway-ca'] ?? '', pid: undefined });
const proxy = values.proxy ? await startProxy(sim.url) : undefined;
const results = [];
for (const n of values.senders!.split(',').map(Number)) {
  const r = await runOnce(n, sim, appId, apiKey);
  console.log(JSON.stringify(r));
  results.push(r);
}
// --h2load-n 0 skips the ceiling (a delayed sink's ceiling is its streams over its delay, not a measurement).
const c = values['h2load-n'] === '0' ? { perSecond: Number.NaN, raw: 'skipped' } : await ceiling(sim);
console.log(`h2load ceiling: ${c.perSecond.toFixed(0)} req/s (${c.raw})`);
for (const r of results) {
  console.log(`${r.senders} sender(s): ${r.devices} devices in ${r.seconds.toFixed(1)} s = ${r.perSecond.toFixed(0)} devices/s, ${(100 * r.perSecond / c.perSecond).toFixed(0)}% of the sink's ceiling; sender CPU ${r.senderCpuSeconds.toFixed(1)} s (${((1e6 * r.senderCpuSeconds) / r.devices).toFixed(1)} µs/device), sink CPU ${r.sinkCpuSeconds.toFixed(1)} s${proxy ? `, proxy CPU ${r.proxyCpuSeconds.toFixed(1)} s` : ''}`);
}
const bus = await connectBus(process.env.HERALD_NATS_URL ?? 'nats://127.0.0.1:4222', PREFIX);
await deleteStreams(bus.jsm, bus.names);
await bus.close();
await goSink?.close();
if (!values['keep-db']) {
  // The devices are kept between runs (inserting a million takes a while); sends are dropped.
  const pool = createPool(dbUrl, { max: 1 });
  await pool.query('DELETE FROM sends');
  await pool.end();
}
process.exit(0);
