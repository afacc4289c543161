// The list call's search at scale: one app with --sends sends (default 1,000,000) of varied texts,
// then `q` searches of each kind timed through the list call's own code (parseListFilter +
// listNotifications, the total count included), --rounds times each. Prints p50 / p99 per kind
// and the plan of each, one JSON line per kind. Figures: docs/benchmarks.md "The list call's search".
//
//   npx tsx bench/list-search/run.ts [--sends 1000000] [--rounds 200]
import { parseArgs } from 'node:util';
import { benchDatabase } from '../support/bench-database.js';
import { upsertApp } from '../../core/apps/app-store.js';
import { listNotifications } from '../../core/send/report.js';
import { parseListFilter } from '../../core/send/list-query.js';

const { values } = parseArgs({ options: { sends: { type: 'string', default: '1000000' }, rounds: { type: 'string', default: '200' } } });
const SENDS = Number(values.sends);
const ROUNDS = Number(values.rounds);

const { pool } = await benchDatabase(`herald_bench_search_${SENDS}`, { fresh: false });
const app = await upsertApp(pool, { name: 'bench', bundleId: 'com.example.bench' });
const have = Number((await pool.query('SELECT count(*) FROM sends WHERE app_id = $1', [app.id])).rows[0].count);
if (have !== SENDS) {
  await pool.query('DELETE FROM sends WHERE app_id = $1', [app.id]);
  const t0 = Date.now();
  process.stderr.write(`inserting ${SENDS} sends… `);
  // Texts: a product word of 1,000 (each in 0.1 % of the sends), an order number (unique), a
  // common word in every send, a heading of 10, a name on every 100th send.
  await pool.query(
    `INSERT INTO sends (app_id, target_kind, status, request, total_recipients, sent, created_at)
     SELECT $1, 'segment', 'approved',
            jsonb_build_object(
              'contents', jsonb_build_object('en', 'Your order ' || i || ' of product' || (i % 1000) || ' has shipped', 'fr', 'Votre commande ' || i || ' est partie'),
              'headings', jsonb_build_object('en', 'Shop ' || (i % 10)),
              'name', CASE WHEN i % 100 = 0 THEN 'campaign-' || (i / 100) END),
            100, 100, now() - (($2::int - i) || ' seconds')::interval
       FROM generate_series(1, $2::int) AS i`,
    [app.id, SENDS],
  );
  await pool.query('VACUUM ANALYZE sends');
  process.stderr.write(`${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
}

const kinds: Record<string, string> = {
  'unique order number': String(Math.floor(SENDS * 0.61) + 7),
  'rare word (0.1 %)': 'product417 ',
  'a send name (1 %)': 'campaign-4242',
  'common word (every send)': 'shipped',
  'two characters': 'Sh',
  'no match': 'zzzyx',
};
for (const [kind, q] of Object.entries(kinds)) {
  const filter = parseListFilter({ q, limit: '50' });
  const times: number[] = [];
  let found = 0;
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = performance.now();
    const page = await listNotifications(pool, app.id, filter);
    times.push(performance.now() - t0);
    found = page.total_count;
  }
  times.sort((a, b) => a - b);
  const at = (p: number) => Number(times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(1));
  const plan = (await pool.query(`EXPLAIN SELECT id FROM sends WHERE app_id = $1 AND kind = 'push' AND search_text ILIKE $2 ORDER BY id DESC LIMIT 50`, [app.id, `%${filter.search}%`])).rows.map((r) => r['QUERY PLAN'].trim());
  console.log(JSON.stringify({ sends: SENDS, kind, q, total_count: found, p50Ms: at(0.5), p99Ms: at(0.99), plan: plan.slice(0, 3) }));
}
await pool.end();
