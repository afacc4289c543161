// bench/abuse: the worst request bodies we found or could build, each near the 1 MB body
// limit, sent to a `herald api` process (from the sources) one at a time. For each: its status,
// the time per request (median and max of --reps), and the api's event-loop delay meanwhile (the
// max of prom-client's nodejs_eventloop_lag_max_seconds, read from /metrics before and after, so
// the window holds only that attack).
//
//   npx tsx bench/abuse/run.ts [--reps 5]
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createTestDatabase } from '../../test/env/database.js';
import { ensureServices } from '../../test/env/services.js';
import { setCredentials, upsertApp } from '../../core/apps/app-store.js';
import { createKey } from '../../core/apps/keys.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({ options: { reps: { type: 'string', default: '5' } } });
const REPS = Number(values.reps);

await ensureServices();
const db = await createTestDatabase();
const id = randomBytes(4).toString('hex');
const app = await upsertApp(db.pool, { name: `abuse-${id}`, bundleId: 'dev.herald.abuse', segments: [] });
await setCredentials(db.pool, app.id, { kind: 'token', keyId: 'ABUSEKEY01', teamId: 'ABUSETEAM1', material: Buffer.from('x') });
const { key } = await createKey(db.pool, app.id, {});

const child = spawn(process.execPath, [join(ROOT, 'bin/herald.js'), 'api'], {
  cwd: ROOT,
  env: {
    ...process.env,
    HERALD_DATABASE_URL: db.url,
    HERALD_NATS_URL: process.env.HERALD_TEST_NATS_URL ?? 'nats://127.0.0.1:4222',
    HERALD_REDIS_URL: process.env.HERALD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    HERALD_STREAM_PREFIX: `A${id}`,
    HERALD_REDIS_PREFIX: `abuse${id}:`,
    HERALD_LOG_LEVEL: 'warn',
    HERALD_HTTP_HOST: '127.0.0.1',
    HERALD_HTTP_PORT: '0',
    HERALD_PRINT_PORT: '1',
    HERALD_RATE_LIMITS: 'off',
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const url = await new Promise<string>((resolve, reject) => {
  let out = '';
  child.stdout!.on('data', (b: Buffer) => {
    out += b.toString();
    const m = /listening (\d+)/.exec(out);
    if (m) resolve(`http://127.0.0.1:${m[1]}`);
  });
  child.once('exit', (code) => reject(new Error(`api exited with ${code}`)));
});

const codes = (n: number) => Array.from({ length: n }, (_, i) => `aa-${i.toString(26).replace(/./g, (c) => String.fromCharCode(65 + parseInt(c, 26))).padStart(4, 'A')}`);
const send = (extra: Record<string, unknown>) => ({ app_id: app.id, contents: { en: 'Hi' }, included_segments: ['All'], ...extra });
const many = (n: number, value: (i: number) => unknown) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, value(i)]));

const attacks: Array<{ name: string; path: string; key?: boolean; body: string }> = [
  // Two references: an ordinary send, and the floor any 900 KB body costs (read, decode, parse).
  { name: 'reference: an ordinary list send', path: '/api/v1/notifications', key: true, body: JSON.stringify(send({ included_segments: undefined, include_external_ids: ['a'] })) },
  { name: 'reference: 900,000 characters in an unknown field', path: '/api/v1/notifications', key: true, body: JSON.stringify(send({ included_segments: undefined, include_external_ids: ['a'], note: 'n'.repeat(900_000) })) },
  { name: 'send_after + 900,000 spaces + "!"', path: '/api/v1/notifications', key: true, body: JSON.stringify(send({ send_after: '2026-11-24T14:00' + ' '.repeat(900_000) + '!' })) },
  { name: '16,000 languages in contents and headings + 250 data values', path: '/api/v1/notifications', key: true, body: JSON.stringify(send({ contents: Object.fromEntries(codes(16_000).map((c) => [c, 'x'])), headings: Object.fromEntries(codes(16_000).map((c) => [c, 'y'])), data: many(250, () => 'v'.repeat(2000)) })) },
  { name: '100 languages × 2,000 chars + headings + 1,000 data entries (the largest under every cap)', path: '/api/v1/notifications', key: true, body: JSON.stringify(send({ contents: Object.fromEntries(codes(100).map((c) => [c, 'é'.repeat(2000)])), headings: Object.fromEntries(codes(100).map((c) => [c, 'h'.repeat(120)])), data: many(1000, () => 'v'.repeat(500)) })) },
  { name: 'one language of 450,000 emoji', path: '/api/v1/notifications', key: true, body: JSON.stringify(send({ contents: { en: '😀'.repeat(110_000) } })) },
  { name: '500 external ids of 1,900 characters', path: '/api/v1/notifications', key: true, body: JSON.stringify(send({ included_segments: undefined, include_external_ids: Array.from({ length: 500 }, () => 'e'.repeat(1900)) })) },
  { name: 'JSON nested 400,000 arrays deep', path: '/api/v1/notifications', key: true, body: '['.repeat(400_000) + ']'.repeat(400_000) },
  { name: 'SDK register: 30,000 bad tags (anonymous)', path: `/api/v1/apps/${app.id}/subscriptions`, body: JSON.stringify({ token: 'ab'.repeat(32), tags: many(30_000, () => ({ bad: true })) }) },
  { name: 'SDK register: 200 tags of 128 + 128 characters (anonymous)', path: `/api/v1/apps/${app.id}/subscriptions`, body: JSON.stringify({ token: 'cd'.repeat(32), tags: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [String(i).padEnd(128, 'k'), 'v'.repeat(128)])) }) },
];

async function lagMaxMs(): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const m = /^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text);
  return m ? Number(m[1]) * 1000 : NaN;
}

console.log(`bench/abuse: ${REPS} requests per attack, one at a time; ${cpus().length} CPUs (${cpus()[0]?.model}); api from the sources (tsx)`);
console.log('| attack | body | status | ms per request (median / max) | api event-loop delay max (ms) |');
console.log('| --- | --- | --- | --- | --- |');
for (const attack of attacks) {
  const times: number[] = [];
  let status = 0;
  await lagMaxMs(); // resets the window
  for (let i = 0; i < REPS; i++) {
    const t0 = performance.now();
    const res = await fetch(url + attack.path, { method: 'POST', headers: { 'content-type': 'application/json', ...(attack.key ? { authorization: `Key ${key}` } : {}) }, body: attack.body });
    await res.text();
    times.push(performance.now() - t0);
    status = res.status;
  }
  const lag = await lagMaxMs();
  times.sort((a, b) => a - b);
  const kb = Math.round(Buffer.byteLength(attack.body) / 1024);
  console.log(`| ${attack.name} | ${kb} KB | ${status} | ${times[Math.floor(times.length / 2)].toFixed(1)} / ${times[times.length - 1].toFixed(1)} | ${lag.toFixed(1)} |`);
}
child.kill('SIGTERM');
await db.drop();
process.exit(0);
