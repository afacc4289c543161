// Audiences of 10,000,000 installs: for each size (--sizes, ascending), installs are added to one
// app (import time), then through a real `herald api` process the answer time of a segment send,
// a tag send and a multi-condition filters send (each answers with its estimate), then a real
// `herald sender` process plans the segment send's chunks (the time from the sender being ready
// to the send's chunks_total being set), and the peak RSS of both processes (VmHWM). The gateway is
// unreachable on purpose: the bench stops at planning. Prints a table and the slope between sizes.
// The segment planned is Gold (10 % of installs), within the contract's cap of 1,000,000 a send.
// With --export, each size also exports every install through exportSubscriptions and reads the
// file to its last byte (bench/audience/export.ts): time and the api's peak RSS.
//
//   npx tsx bench/audience/run.ts [--sizes 1000000,3000000,10000000] [--export]
import { readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { setCredentials, upsertApp } from '../../core/apps/app-store.js';
import { createKey } from '../../core/apps/keys.js';
import { generateApnsKeyPair } from '../../apns-sim/index.js';
import { benchDatabase } from '../support/bench-database.js';
import { spawnHerald } from '../support/herald-process.js';
import { measureExport, type ExportFigures } from './export.js';

const { values } = parseArgs({ options: { sizes: { type: 'string', default: '1000000,3000000,10000000' }, export: { type: 'boolean', default: false } } });
const SIZES = values.sizes!.split(',').map(Number).sort((a, b) => a - b);

const { pool, url } = await benchDatabase('herald_bench_audience_run', { fresh: true });
const app = await upsertApp(pool, { name: 'bench', bundleId: 'com.example.bench', segments: [{ name: 'Gold', conditions: [{ key: 'plan', relation: '=', value: 'gold' }] }] });
const apnsKey = generateApnsKeyPair();
await setCredentials(pool, app.id, { kind: 'token', keyId: apnsKey.keyId, teamId: 'BENCHTEAM1', material: Buffer.from(apnsKey.privateKeyP8) });
const { key } = await createKey(pool, app.id, { name: 'bench' });
const env = { HERALD_DATABASE_URL: url, HERALD_RATE_LIMITS: 'off', HERALD_STREAM_PREFIX: 'BAUD', HERALD_REDIS_PREFIX: 'baud:' };

// Every installed device, a custom segment (10 %: the send planned below, within the contract's
// 1,000,000-device cap), a tag and OR-ed filters. Above the cap the answer is the contract's 422,
// which needs the same count: its time is measured all the same.
const kinds: Record<string, Record<string, unknown>> = {
  segment: { included_segments: ['Subscribed Users'] },
  gold: { included_segments: ['Gold'] },
  tag: { tag: { key: 'level', relation: '>', value: '90' } },
  filters: { filters: [{ field: 'tag', key: 'level', relation: '>', value: '50' }, { field: 'language', relation: '=', value: 'en' }, { operator: 'OR' }, { field: 'tag', key: 'plan', relation: '=', value: 'gold' }] },
};
const peakRss = (pid: number) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

interface Row { size: number; importS: number; answers: Record<string, { ms: number; estimate: number; refused: boolean }>; planS: number; chunks: number; apiRssMb: number; senderRssMb: number; export?: ExportFigures }
const rows: Row[] = [];
let have = 0;
for (const size of SIZES) {
  const t0 = performance.now();
  await pool.query(
    `INSERT INTO subscriptions (id, app_id, token, language, tags, last_active, created_at)
     SELECT gen_random_uuid(), $1, lpad(to_hex(i), 64, '0'), (ARRAY['en','fr','de','pt-BR'])[1 + i % 4],
            jsonb_build_object('level', (i % 100)::text, 'plan', CASE WHEN i % 10 = 0 THEN 'gold' ELSE 'free' END),
            now() - ((i % 720) || ' hours')::interval, now() - ((i % 2000) || ' hours')::interval
       FROM generate_series($2::int + 1, $3::int) AS i`,
    [app.id, have, size],
  );
  await pool.query('VACUUM ANALYZE subscriptions');
  have = size;
  const importS = (performance.now() - t0) / 1000;
  process.stderr.write(`${size.toLocaleString('en-US')} installs: import ${importS.toFixed(1)} s\n`);

  const api = await spawnHerald(['api'], { ...env, HERALD_HTTP_PORT: '0' }, /^listening \d+/);
  const base = `http://127.0.0.1:${/listening (\d+)/.exec(api.line)![1]}`;
  const answers: Row['answers'] = {};
  const ids = new Map<string, number>();
  for (const [kind, target] of Object.entries(kinds)) {
    const started = performance.now();
    const res = await fetch(`${base}/api/v1/notifications`, {
      method: 'POST',
      headers: { Authorization: `Key ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ app_id: app.id, contents: { en: 'bench' }, ...target }),
    });
    const body = (await res.json()) as { id: number; estimate: number; errors?: string[] };
    const ms = Math.round(performance.now() - started);
    if (res.status === 202) {
      answers[kind] = { ms, estimate: body.estimate, refused: false };
      ids.set(kind, body.id);
    } else if (res.status === 422 && /audience has ([\d,]+) devices/.test(body.errors?.[0] ?? '')) {
      answers[kind] = { ms, estimate: Number(/audience has ([\d,]+) devices/.exec(body.errors![0])![1].replace(/,/g, '')), refused: true };
    } else {
      throw new Error(`${kind}: ${res.status} ${JSON.stringify(body)}`);
    }
  }
  // Only the Gold send is planned: the others are canceled before a sender exists.
  for (const [kind, id] of ids) if (kind !== 'gold') await fetch(`${base}/api/v1/notifications/${id}`, { method: 'DELETE', headers: { Authorization: `Key ${key}` } });

  const sender = await spawnHerald(['sender'], { ...env, HERALD_APNS_URL: 'https://127.0.0.1:9', HERALD_SENDER_CONCURRENCY: '1', HERALD_METRICS_PORT: '0' }, /^sender ready/);
  const planStarted = performance.now();
  let chunks: number | null = null;
  while (chunks === null) {
    chunks = (await pool.query('SELECT chunks_total FROM sends WHERE id = $1', [ids.get('gold')])).rows[0].chunks_total;
    if (chunks === null) await new Promise((r) => setTimeout(r, 100));
  }
  const planS = (performance.now() - planStarted) / 1000;
  const row: Row = { size, importS, answers, planS, chunks, apiRssMb: peakRss(api.child.pid!), senderRssMb: peakRss(sender.child.pid!) };
  rows.push(row);
  process.stderr.write(`${JSON.stringify(row)}\n`);
  await fetch(`${base}/api/v1/notifications/${ids.get('gold')}`, { method: 'DELETE', headers: { Authorization: `Key ${key}` } });
  for (const p of [sender.child, api.child]) {
    p.kill('SIGTERM');
    await new Promise((r) => p.once('exit', r));
  }
  if (values.export) {
    row.export = await measureExport(env, key, app.id);
    process.stderr.write(`export: ${JSON.stringify(row.export)}\n`);
  }
}
await pool.end();

const ms = (n: number) => n.toLocaleString('en-US');
console.log(`\nbench/audience — ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GB, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} at the end\n`);
console.log('| installs | import | every device: answer (count) | segment Gold | tag level > 90 | filters (2 groups) | plan the Gold send (chunks) | api peak RSS | sender peak RSS |');
console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const r of rows) {
  const a = (k: string) => `${ms(r.answers[k].ms)} ms (${ms(r.answers[k].estimate)}${r.answers[k].refused ? ', 422 over the cap' : ''})`;
  console.log(`| ${ms(r.size)} | ${r.importS.toFixed(1)} s | ${a('segment')} | ${a('gold')} | ${a('tag')} | ${a('filters')} | ${r.planS.toFixed(1)} s (${ms(r.chunks)}) | ${r.apiRssMb.toFixed(0)} MB | ${r.senderRssMb.toFixed(0)} MB |`);
}
if (values.export) {
  console.log('\n| installs | link answered | first byte | last byte | gzip file | api RSS idle → peak |');
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const { size, export: e } of rows) {
    console.log(`| ${ms(size)} | ${e!.linkMs.toFixed(0)} ms | ${e!.firstByteMs.toFixed(0)} ms | ${e!.lastByteS.toFixed(1)} s | ${e!.gzipMb.toFixed(0)} MB | ${e!.rssIdleMb.toFixed(0)} → ${e!.rssPeakMb.toFixed(0)} MB |`);
  }
}
for (let i = 1; i < rows.length; i++) {
  const [p, r] = [rows[i - 1], rows[i]];
  const k = r.size / p.size;
  const slope = (a: number, b: number) => (Math.log(b / a) / Math.log(k)).toFixed(2);
  console.log(`slope ${ms(p.size)} → ${ms(r.size)} (exponent: 1 = linear): every device ${slope(p.answers.segment.ms, r.answers.segment.ms)}, Gold ${slope(p.answers.gold.ms, r.answers.gold.ms)}, tag ${slope(p.answers.tag.ms, r.answers.tag.ms)}, filters ${slope(p.answers.filters.ms, r.answers.filters.ms)}, planning ${slope(p.planS, r.planS)}, api RSS ${slope(p.apiRssMb, r.apiRssMb)}, sender RSS ${slope(p.senderRssMb, r.senderRssMb)}`);
}
process.exit(0);
