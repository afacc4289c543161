// Live Activity broadcast benchmark (issue 29 "Measure"): updates to an activity whose devices are
// subscribed to its broadcast channel, through the real api (updateLiveActivity as the official
// client sends it) with the App's spec.liveActivities.broadcast, idle and during another app's
// --devices alert broadcast. Three measures:
//   1. channel: an update to an activity with --subscribed devices, all on the channel (no update
//      token): request → the simulator received the ONE broadcast request (its receivedAt), and the
//      answer (request → 200, which comes after Apple's answer by design);
//   2. mixed: the same activity with --token-share of its devices (10 %) on per-token delivery
//      (update tokens, devices before iOS 18): request → broadcast received, and answer → the last
//      token push received by the simulator;
//   3. per-token updates of 1, 10, 100 tokens (activities without a channel) during the broadcast:
//      answer → the last push received, as bench/live-activity/run.ts measures them.
// The devices on the channel are Apple's fan-out, not Herald's work (one request whatever their
// number): the simulator gets --sim-subscribers of them to show the broadcast reaches devices, not
// a million (its own fan-out would run on the same two cores as Herald).
//
//   npx tsx bench/live-activity/broadcast.ts [--devices 1000000] [--subscribed 1000000]
//        [--token-share 0.1] [--rate 2] [--seconds 20] [--mixed 3] [--senders 2] [--one-simulator]
//
// Needs PostgreSQL, Redis and NATS on their usual ports; the api, the senders and the simulator
// run as processes of their own (bin/herald). Never part of `make test`.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createKey } from '../../core/apps/keys.js';
import { statusInSql } from '../../core/send-model/states.js';
import { spawnHerald } from '../support/herald-process.js';
import { activityTokens, alertBroadcastSetup, benchApp, loadAverage, startAlertBroadcast, summary, wait } from './support.js';

const { values } = parseArgs({
  options: {
    devices: { type: 'string', default: '1000000' },
    subscribed: { type: 'string', default: '1000000' },
    'token-share': { type: 'string', default: '0.1' },
    'sim-subscribers': { type: 'string', default: '1000' },
    rate: { type: 'string', default: '2' }, // updates a second
    seconds: { type: 'string', default: '20' }, // per phase
    mixed: { type: 'string', default: '3' },
    senders: { type: 'string', default: '2' },
    // One simulator process for everything Apple does here (as before 2026-11-28): the Live
    // Activity requests then wait behind the alert broadcast's pushes in one event loop.
    'one-simulator': { type: 'boolean', default: false },
  },
});
const DEVICES = Number(values.devices);
const SUBSCRIBED = Number(values.subscribed);
const TOKENS = Math.round(SUBSCRIBED * Number(values['token-share']));
const SIZES = [1, 10, 100];
const PREFIX = `LB${Date.now().toString(36)}`;
const { pool, url, apnsKey, teamId, big } = await alertBroadcastSetup(DEVICES);
const live = await benchApp(pool, 'stadium', apnsKey, teamId);
await pool.query('UPDATE apps SET live_activity_broadcast = true WHERE id = $1', [live.id]);
await pool.query('DELETE FROM subscriptions WHERE app_id = $1', [live.id]);
await pool.query('DELETE FROM live_activity_channels WHERE app_id = $1', [live.id]);
await pool.query('DELETE FROM live_activity_channels_retired WHERE app_id = $1', [live.id]);

const tokensFor = (activity: string, size: number) => activityTokens(pool, live.id, activity, size);
const perToken: Array<{ id: string; size: number; tokens: string[] }> = [];
for (const size of SIZES) for (let k = 0; k < 5; k++) perToken.push({ id: `score-${size}-${k}`, size, tokens: await tokensFor(`score-${size}-${k}`, size) });
await tokensFor('final-mixed', TOKENS);
const [appInstall] = (await pool.query<{ id: string }>(`INSERT INTO subscriptions (id, app_id, token, language) VALUES (gen_random_uuid(), $1::uuid, md5('app' || $1::text) || md5($1::text), 'en') RETURNING id`, [live.id])).rows;
await pool.query('VACUUM ANALYZE live_activity_tokens');
const { key } = await createKey(pool, live.id, { name: 'bench' });
const { key: bigKey } = await createKey(pool, big.id, { name: 'bench' });

const certDir = await mkdtemp(join(tmpdir(), 'herald-bench-lab-'));
type SimInfo = { url: string; controlUrl: string; managementUrl: string; caFile: string };
// Only Live Activity pushes are kept (not the alerts): a mixed update's TOKENS pushes fit the ring.
// A second simulator in the same --cert-dir reuses the first's CA.
const startSimulator = async (): Promise<SimInfo> =>
  JSON.parse(
    (
      await spawnHerald(
        ['apns-sim', '--port', '0', '--control-port', '0', '--management-port', '0', '--cert-dir', certDir, '--max-deliveries', String(TOKENS + 50_000), '--keep-push-types', 'liveactivity', '--track-tokens', 'false'],
        {},
        /^\{"url"/,
        { echoWarnings: true },
      )
    ).line,
  ) as SimInfo;
const simInfo = await startSimulator();
// Apple's gateway is not one process on Herald's cores. By default the alert broadcast's app is a
// sandbox app, and HERALD_APNS_SANDBOX_URL is a second simulator: its 8,000 pushes a second go
// there, while the Live Activity app's broadcasts, channel calls and per-token pushes go to the
// first. With one simulator for both, every Live Activity request waits behind the alert pushes in
// that simulator's own event loop (the probe shows it).
const alertSim = values['one-simulator'] ? simInfo : await startSimulator();
const simulators = [...new Set([simInfo.controlUrl, alertSim.controlUrl])];
await pool.query(`UPDATE apps SET environment = 'sandbox' WHERE id = $1`, [big.id]);
const env = {
  HERALD_DATABASE_URL: url,
  HERALD_STREAM_PREFIX: PREFIX,
  HERALD_REDIS_PREFIX: `${PREFIX.toLowerCase()}:`,
  HERALD_HTTP_HOST: '127.0.0.1',
  HERALD_METRICS_PORT: '0',
  HERALD_RATE_LIMITS: 'off',
  HERALD_APNS_URL: simInfo.url,
  HERALD_APNS_SANDBOX_URL: alertSim.url,
  HERALD_APNS_CA_FILE: simInfo.caFile,
  HERALD_APNS_BROADCAST_URL: simInfo.managementUrl,
};
const api = await spawnHerald(['api'], { ...env, HERALD_HTTP_PORT: '0' }, /^listening \d+/);
const base = `http://127.0.0.1:${/listening (\d+)/.exec(api.line)![1]}`;
await Promise.all(Array.from({ length: Number(values.senders) }, () => spawnHerald(['sender'], env, /^metrics \d+/, { echoWarnings: true })));

/** The activity's channel through the app-facing call (made on first need), with devices subscribed at the simulator. */
async function channelOf(activity: string): Promise<string> {
  const res = await fetch(`${base}/api/v1/apps/${live.id}/live_activities/${activity}/channel?subscription_id=${appInstall.id}`);
  const body = (await res.json()) as { channel_id: string | null };
  if (!body.channel_id) throw new Error(`no channel for ${activity}: ${JSON.stringify(body)}`);
  for (let i = 0; i < Number(values['sim-subscribers']); i++) {
    await fetch(`${simInfo.controlUrl}/channels/${encodeURIComponent(body.channel_id)}/devices`, { method: 'POST', body: JSON.stringify({ token: `${activity}-device-${i}` }) });
  }
  return body.channel_id;
}
const channel = await channelOf('final');
const mixedChannel = await channelOf('final-mixed');

interface Sample {
  n: number;
  activity: string;
  startedAt: number;
  answeredAt: number;
  sendId: number;
}

let counter = 0;
async function update(activity: string): Promise<Sample> {
  const n = counter++;
  const startedAt = Date.now();
  const res = await fetch(`${base}/api/v1/apps/${live.id}/live_activities/${activity}/notifications`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Key ${key}` },
    body: JSON.stringify({ name: 'score', event: 'update', event_updates: { home: n % 7, away: n % 5, minute: n } }),
  });
  const body = (await res.json()) as { id?: string };
  if (res.status !== 200 || !body.id) throw new Error(`update answered ${res.status}: ${JSON.stringify(body)}`);
  return { n, activity, startedAt, answeredAt: Date.now(), sendId: Number(body.id) };
}

interface Received { token: string; receivedAt: number; payload: string; broadcast?: boolean; channelId?: string }
async function receivedSince(since: number, limit = 100_000): Promise<Received[]> {
  const each = await Promise.all(
    simulators.map(async (control) => ((await (await fetch(`${control}/deliveries?since=${since}&limit=${limit}`)).json()) as { deliveries: Received[] }).deliveries),
  );
  return each.flat();
}
const minuteOf = (payload: string) => Number(/"minute":(\d+)\}/.exec(payload)?.[1] ?? -1);

/** Request → the simulator received the update's broadcast, per sample; undefined when it did not. */
function broadcastTimes(samples: Sample[], got: Received[]): Map<number, number> {
  const at = new Map<number, number>();
  for (const d of got) if (d.broadcast) at.set(minuteOf(d.payload), d.receivedAt);
  return new Map(samples.filter((s) => at.has(s.n)).map((s) => [s.n, at.get(s.n)! - s.startedAt]));
}

/** Answer → the last of the update's token pushes, per sample (every token received). */
function lastPushTimes(samples: Array<Sample & { tokens: string[] }>, got: Received[]): Map<number, number> {
  const first = new Map<string, number>();
  for (const d of got) if (!d.broadcast && !d.channelId) first.set(`${minuteOf(d.payload)}/${d.token}`, Math.min(first.get(`${minuteOf(d.payload)}/${d.token}`) ?? Infinity, d.receivedAt));
  const out = new Map<number, number>();
  for (const s of samples) {
    const times = s.tokens.map((t) => first.get(`${s.n}/${t}`));
    if (times.every((t) => t !== undefined)) out.set(s.n, Math.max(...(times as number[])) - s.answeredAt);
  }
  return out;
}

/**
 * What an update waits on besides Herald's own code, sampled every 100 ms while a phase runs: a
 * PostgreSQL round trip (SELECT 1 on a connection of its own), the api's event loop (/healthz
 * touches nothing) and the simulators' (their control /healthz): the Live Activity app's, and the
 * alert broadcast's (the same process with --one-simulator).
 */
function probe(): () => Promise<string> {
  const times: Record<'postgres' | 'api' | 'Live Activity simulator' | 'alert simulator', number[]> = { postgres: [], api: [], 'Live Activity simulator': [], 'alert simulator': [] };
  let running = true;
  const timed = async (into: number[], op: () => Promise<unknown>) => {
    const t = performance.now();
    await op();
    into.push(performance.now() - t);
  };
  const loop = (async () => {
    const client = await pool.connect();
    try {
      while (running) {
        await Promise.all([
          timed(times.postgres, () => client.query('SELECT 1')),
          timed(times.api, async () => (await fetch(`${base}/healthz`)).arrayBuffer()),
          timed(times['Live Activity simulator'], async () => (await fetch(`${simInfo.controlUrl}/healthz`)).arrayBuffer()),
          timed(times['alert simulator'], async () => (await fetch(`${alertSim.controlUrl}/healthz`)).arrayBuffer()),
        ]);
        await wait(100);
      }
    } finally {
      client.release();
    }
  })();
  return async () => {
    running = false;
    await loop;
    return Object.entries(times).map(([name, ms]) => `${name} ${summary(ms.map(Math.round))}`).join('; ');
  };
}

/** Channel updates (and, during the broadcast, per-token ones in turn) at --rate for --seconds. */
async function phase(label: string, withPerToken: boolean, seconds = Number(values.seconds)): Promise<void> {
  const rate = Number(values.rate);
  const total = Math.round(rate * seconds);
  const started = Date.now();
  const load0 = await loadAverage();
  const channelSamples: Sample[] = [];
  const tokenSamples: Array<Sample & { tokens: string[]; size: number }> = [];
  const probed = probe();
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate - Date.now();
    if (due > 0) await wait(due);
    channelSamples.push(await update('final'));
    if (withPerToken) {
      const a = perToken[i % perToken.length];
      tokenSamples.push({ ...(await update(a.id)), tokens: a.tokens, size: a.size });
    }
  }
  const waits = await probed();
  await wait(5_000); // the per-token pushes' last receipts
  const got = await receivedSince(started);
  const bc = broadcastTimes(channelSamples, got);
  console.log(`${label} (load average ${load0} → ${await loadAverage()}):`);
  console.log(`  channel update, request → 200: ${summary(channelSamples.map((s) => s.answeredAt - s.startedAt))}`);
  console.log(`  channel update, request → the simulator received the broadcast: ${summary([...bc.values()])}${channelSamples.length - bc.size ? `; ${channelSamples.length - bc.size} not received` : ''}`);
  const subscribed = got.filter((d) => d.channelId === channel && !d.broadcast).length;
  console.log(`  deliveries to the ${values['sim-subscribers']} devices subscribed at the simulator: ${subscribed} (${channelSamples.length} updates)`);
  console.log(`  round trips meanwhile (every 100 ms): ${waits}`);
  if (!withPerToken) return;
  const last = lastPushTimes(tokenSamples, got);
  for (const size of SIZES) {
    const of = tokenSamples.filter((s) => s.size === size);
    const ms = of.filter((s) => last.has(s.n)).map((s) => last.get(s.n)!);
    console.log(`  per-token update, ${size} token${size === 1 ? '' : 's'}: answer → the last push received: ${summary(ms)}${of.length - ms.length ? `; ${of.length - ms.length} not all received` : ''}`);
  }
}

/** Updates to the activity with TOKENS devices on tokens beside the channel, one at a time. */
async function mixed(count: number): Promise<void> {
  console.log(`mixed: ${TOKENS.toLocaleString('en-US')} of ${SUBSCRIBED.toLocaleString('en-US')} devices on per-token delivery (load average ${await loadAverage()}):`);
  for (let i = 0; i < count; i++) {
    const s = await update('final-mixed');
    for (let k = 0; k < 1200; k++) {
      const r = await pool.query(`SELECT ${statusInSql('status', 'final')} AS done, sent, failed FROM sends WHERE id = $1`, [s.sendId]);
      if (r.rows[0].done) break;
      await wait(250);
    }
    const got = await receivedSince(s.startedAt, TOKENS + 10_000);
    const tokenPushes = got.filter((d) => !d.channelId && minuteOf(d.payload) === s.n);
    const lastAt = Math.max(...tokenPushes.map((d) => d.receivedAt));
    const bc = got.find((d) => d.broadcast && minuteOf(d.payload) === s.n);
    const row = (await pool.query('SELECT sent, failed, total_recipients FROM sends WHERE id = $1', [s.sendId])).rows[0];
    console.log(`  update ${i + 1}: request → 200 ${s.answeredAt - s.startedAt} ms; request → broadcast received ${bc ? bc.receivedAt - s.startedAt : 'never'} ms; answer → the last of ${tokenPushes.length.toLocaleString('en-US')} token pushes received ${lastAt - s.answeredAt} ms (sent ${row.sent}, failed ${row.failed} of ${row.total_recipients})`);
  }
}

await phase('warm-up', false, 5);
await phase('idle', false);
const alert = await startAlertBroadcast(pool, base, bigKey, big.id);
await phase(`during a ${DEVICES.toLocaleString('en-US')}-device alert broadcast`, true);
await mixed(Number(values.mixed));
console.log(await alert.pauseAndReport());
console.log(`channels: ${channel} and ${mixedChannel}`);

await pool.query('DELETE FROM sends');
await pool.end();
process.exit(0);
