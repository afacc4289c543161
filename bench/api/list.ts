// bench/api/list: latency of the list call (GET /api/v1/notifications) and the dashboard's sends
// page for one app with many sends, in-process api, one request at a time. Prints p50/p99 per
// query shape; the total_count scan grows with the app's matching sends.
//
//   npx tsx bench/api/list.ts [--sends 100000] [--requests 50]
import { parseArgs } from 'node:util';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus } from 'node:os';
import { ensureServices } from '../../test/env/services.js';
import { createTestDatabase } from '../../test/env/database.js';
import { upsertApp } from '../../core/apps/app-store.js';
import { createKey } from '../../core/apps/keys.js';
import { createApi } from '../../api/server.js';
import { PgIdempotencyGuard } from '../../core/idempotency/pg-guard.js';
import { createApiMetrics } from '../../api/shared/metrics.js';
import { silentLogger } from '../../core/log.js';

const { values } = parseArgs({ options: { sends: { type: 'string', default: '100000' }, requests: { type: 'string', default: '50' } } });
const SENDS = Number(values.sends);
const REQUESTS = Number(values.requests);

await ensureServices();
const db = await createTestDatabase();
const app = await upsertApp(db.pool, { name: 'bench-list', bundleId: 'dev.herald.bench', segments: [] });
const { key } = await createKey(db.pool, app.id, { scope: 'read' });
await db.pool.query(
  `INSERT INTO sends (app_id, source, target_kind, request, status, total_recipients, sent, created_at)
   SELECT $1, (ARRAY['api', 'kubernetes', 'dashboard'])[1 + i % 3], 'segment',
          jsonb_build_object('contents', jsonb_build_object('en', 'Message number ' || i)), 'approved', 1000, 990,
          now() - make_interval(mins => $2 - i)
     FROM generate_series(1, $2) i`,
  [app.id, SENDS],
);
await db.pool.query('ANALYZE sends');
const server = createServer(createApi({ pool: db.pool, bus: {} as never, logger: silentLogger(), metrics: createApiMetrics(), trustProxyHops: 0, idempotency: new PgIdempotencyGuard(db.pool) }).callback());
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

async function measure(path: string): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const t = performance.now();
    const res = await fetch(url + path, { headers: { authorization: `Key ${key}` } });
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(times.length * 0.5)], p99: times[Math.min(times.length - 1, Math.floor(times.length * 0.99))] };
}

process.stdout.write(`list call, one app with ${SENDS.toLocaleString('en-US')} sends, ${REQUESTS} sequential requests each, ${cpus().length} CPUs\n`);
for (const [label, path] of [
  ['first page (50)', `/api/v1/notifications?app_id=${app.id}`],
  ['deep page (offset 50,000)', `/api/v1/notifications?app_id=${app.id}&offset=${Math.min(50_000, SENDS - 50)}`],
  ['kind=1 (API)', `/api/v1/notifications?app_id=${app.id}&kind=1`],
  ['text search q=number 4242', `/api/v1/notifications?app_id=${app.id}&q=number%204242`],
] as const) {
  const { p50, p99 } = await measure(path);
  process.stdout.write(`  ${label.padEnd(28)} p50 ${p50.toFixed(1)} ms  p99 ${p99.toFixed(1)} ms\n`);
}
server.close();
await db.drop();
