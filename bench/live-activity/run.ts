// Live Activity fast-lane benchmark: updates to activities of 1, 10, 100 and 1,000 tokens through
// the real api (POST /apps/{app}/live_activities/{activity}/notifications, as the official client
// sends it), first on an idle system, then while a --devices broadcast (1,000,000) is delivered.
// For each update it measures from its answer (the bench received the api's 200) to the gateway:
//   - "gateway": the last of its pushes received by the APNs simulator (its receivedAt, read from
//     the simulator's control port, which keeps only liveactivity pushes), for every size;
//   - "recorded": its last chunk recorded (send_chunks.finished_at: the record's transaction,
//     which starts once Apple answered every push of the chunk), for every size.
// Prints p50/p99/max per phase and the machine's load. The broadcast is paused (invoice overdue)
// once the measurement ends.
//
//   npx tsx bench/live-activity/run.ts [--devices 1000000] [--senders 2] [--concurrency 4]
//        [--rate 4] [--seconds 30]
//
// Needs PostgreSQL, Redis and NATS on their usual ports; the api, the senders and the simulator
// run as processes of their own (bin/herald). Never part of `make test`.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { statusInSql } from '../../core/send-model/states.js';
import { createKey } from '../../core/apps/keys.js';
import { spawnHerald } from '../support/herald-process.js';
import { activityTokens, alertBroadcastSetup, benchApp, loadAverage, startAlertBroadcast, summary } from './support.js';

const { values } = parseArgs({
  options: {
    devices: { type: 'string', default: '1000000' },
    senders: { type: 'string', default: '2' },
    concurrency: { type: 'string', default: '4' },
    rate: { type: 'string', default: '4' }, // updates a second
    seconds: { type: 'string', default: '30' }, // per phase
  },
});
const DEVICES = Number(values.devices);
const SIZES = [1, 10, 100, 1000];
const PER_SIZE = 5; // activities of each size
const PREFIX = `LA${Date.now().toString(36)}`;
const { pool, url, apnsKey, teamId, big } = await alertBroadcastSetup(DEVICES);
// The Live Activity app: PER_SIZE activities of each size, each install holding one update token.
const live = await benchApp(pool, 'scores', apnsKey, teamId);
await pool.query('DELETE FROM subscriptions WHERE app_id = $1', [live.id]);
const activities: Array<{ id: string; size: number; tokens: string[] }> = [];
for (const size of SIZES) {
  for (let k = 0; k < PER_SIZE; k++) {
    const id = `match-${size}-${k}`;
    activities.push({ id, size, tokens: await activityTokens(pool, live.id, id, size) });
  }
}
const { key } = await createKey(pool, live.id, { name: 'bench' });
const { key: bigKey } = await createKey(pool, big.id, { name: 'bench' });

const certDir = await mkdtemp(join(tmpdir(), 'herald-bench-la-'));
// The ring keeps the last 100,000 Live Activity pushes (the broadcast's alerts are not kept): more
// than a phase sends (30 s × 4 updates/s × 278 tokens on average), read once at each phase's end.
const sim = await spawnHerald(
  ['apns-sim', '--port', '0', '--control-port', '0', '--cert-dir', certDir, '--max-deliveries', '100000', '--keep-push-types', 'liveactivity', '--track-tokens', 'false'],
  {},
  /^\{"url"/,
  { echoWarnings: true },
);
const simInfo = JSON.parse(sim.line) as { url: string; controlUrl: string; caFile: string };
const env = {
  HERALD_DATABASE_URL: url,
  HERALD_STREAM_PREFIX: PREFIX,
  HERALD_REDIS_PREFIX: `${PREFIX.toLowerCase()}:`,
  HERALD_HTTP_HOST: '127.0.0.1',
  HERALD_METRICS_PORT: '0',
  HERALD_RATE_LIMITS: 'off',
  HERALD_APNS_URL: simInfo.url,
  HERALD_APNS_CA_FILE: simInfo.caFile,
  HERALD_SENDER_CONCURRENCY: values.concurrency!,
};
const api = await spawnHerald(['api'], { ...env, HERALD_HTTP_PORT: '0' }, /^listening \d+/);
const base = `http://127.0.0.1:${/listening (\d+)/.exec(api.line)![1]}`;
await Promise.all(Array.from({ length: Number(values.senders) }, () => spawnHerald(['sender'], env, /^metrics \d+/, { echoWarnings: true })));

interface Sample {
  n: number;
  size: number;
  sendId: number;
  answeredAt: number;
  answerMs: number;
  tokens: string[];
}

async function updateOnce(a: (typeof activities)[number], n: number): Promise<Sample> {
  const t0 = Date.now();
  const res = await fetch(`${base}/api/v1/apps/${live.id}/live_activities/${a.id}/notifications`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Key ${key}` },
    body: JSON.stringify({ name: 'score', event: 'update', event_updates: { home: n % 7, away: n % 5, minute: n } }),
  });
  const body = (await res.json()) as { id?: string; errors?: string[] };
  const answeredAt = Date.now();
  if (res.status !== 200 || !body.id) throw new Error(`update answered ${res.status}: ${JSON.stringify(body)}`);
  return { n, size: a.size, sendId: Number(body.id), answeredAt, answerMs: answeredAt - t0, tokens: a.tokens };
}

/**
 * Each update's last push as the simulator received it (ms since the epoch), from one read of the
 * pushes received since `since`: an update's push carries its own content-state (`minute`), and
 * counts only when every token of the activity received it.
 */
async function gatewayTimes(samples: Sample[], since: number): Promise<Map<number, number>> {
  const res = (await (await fetch(`${simInfo.controlUrl}/deliveries?since=${since}&limit=100000`)).json()) as { deliveries: Array<{ token: string; receivedAt: number; payload: string }> };
  const firstAt = new Map<string, number>(); // per update and token: its first receipt (a retry comes later)
  for (const d of res.deliveries) {
    const minute = /"minute":(\d+)\}/.exec(d.payload)?.[1];
    if (minute === undefined) continue;
    const key = `${minute}/${d.token}`;
    if (!firstAt.has(key)) firstAt.set(key, d.receivedAt);
  }
  const out = new Map<number, number>();
  for (const s of samples) {
    const times = s.tokens.map((t) => firstAt.get(`${s.n}/${t}`));
    if (times.every((t) => t !== undefined)) out.set(s.n, Math.max(...(times as number[])));
  }
  return out;
}

async function phase(label: string, seconds = Number(values.seconds)): Promise<void> {
  const rate = Number(values.rate);
  const total = Math.round(rate * seconds);
  const samples: Sample[] = [];
  const started = Date.now();
  const load0 = await loadAverage();
  for (let i = 0; i < total; i++) {
    const wait = started + (i * 1000) / rate - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    samples.push(await updateOnce(activities[i % activities.length], i));
  }
  // Each update's last chunk recorded, waiting at most 60 s after the last answer.
  const recorded = new Map<number, number>();
  const until = Date.now() + 60_000;
  while (recorded.size < samples.length && Date.now() < until) {
    const res = await pool.query(
      `SELECT s.id, extract(epoch FROM max(k.finished_at)) * 1000 AS last FROM sends s JOIN send_chunks k ON k.send_id = s.id
        WHERE s.id = ANY($1) AND ${statusInSql('s.status', 'final')} GROUP BY s.id`,
      [samples.map((s) => s.sendId)],
    );
    for (const r of res.rows) recorded.set(Number(r.id), Number(r.last));
    await new Promise((r) => setTimeout(r, 200));
  }
  const gateway = await gatewayTimes(samples, started); // no push of this phase is received before it started
  console.log(`${label} (load average ${load0} → ${await loadAverage()}):`);
  console.log(`  answer (request → 200): ${summary(samples.map((s) => s.answerMs))}`);
  for (const size of SIZES) {
    const ms = samples.filter((s) => s.size === size && gateway.has(s.n)).map((s) => gateway.get(s.n)! - s.answeredAt);
    const missing = samples.filter((s) => s.size === size).length - ms.length;
    console.log(`  answer → the gateway received the last push, ${size} token${size === 1 ? '' : 's'}: ${summary(ms)}${missing ? `; ${missing} not all received` : ''}`);
  }
  const gatewayAll = samples.filter((s) => gateway.has(s.n)).map((s) => gateway.get(s.n)! - s.answeredAt);
  console.log(`  answer → the gateway received the last push, all sizes: ${summary(gatewayAll)}`);
  for (const size of SIZES) {
    const ms = samples.filter((s) => s.size === size && recorded.has(s.sendId)).map((s) => Math.round(recorded.get(s.sendId)! - s.answeredAt));
    console.log(`  answer → last chunk recorded, ${size} token${size === 1 ? '' : 's'}: ${summary(ms)}`);
  }
  const all = samples.filter((s) => recorded.has(s.sendId)).map((s) => Math.round(recorded.get(s.sendId)! - s.answeredAt));
  console.log(`  answer → last chunk recorded, all sizes: ${summary(all)}${samples.length - all.length ? `; ${samples.length - all.length} not finished within 60 s` : ''}`);
}

await phase('warm-up', 10); // the APNs connections and JWTs, prepared statements, the JIT
await phase('idle');

const alert = await startAlertBroadcast(pool, base, bigKey, big.id);
await phase(`during a ${DEVICES.toLocaleString('en-US')}-device broadcast`);
console.log(await alert.pauseAndReport());

await pool.query('DELETE FROM sends');
await pool.end();
process.exit(0);
