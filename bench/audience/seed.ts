// One app of `installs` installs for the audience benches (plans.ts, estimate.ts), kept in its own
// database between runs: tags `level` 0–99 and `plan` gold for one in ten, four languages,
// `last_active` over 30 days, and the App resource's segment Gold.
import type { Pool } from '../../core/store/db.js';
import { benchDatabase } from '../support/bench-database.js';
import { upsertApp } from '../../core/apps/app-store.js';

export async function seededAudience(installs: number): Promise<{ pool: Pool; url: string; appId: string }> {
  const { pool, url } = await benchDatabase(`herald_bench_audience_${installs}`, { fresh: false });
  const created = await upsertApp(pool, { name: 'bench', bundleId: 'com.example.bench', segments: [{ name: 'Gold', conditions: [{ key: 'plan', relation: '=', value: 'gold' }] }] });
  const have = Number((await pool.query('SELECT count(*) FROM subscriptions WHERE app_id = $1', [created.id])).rows[0].count);
  if (have !== installs) {
    await pool.query('DELETE FROM subscriptions WHERE app_id = $1', [created.id]);
    const t0 = Date.now();
    process.stderr.write(`inserting ${installs} installs… `);
    await pool.query(
      `INSERT INTO subscriptions (id, app_id, token, language, tags, last_active, created_at)
       SELECT gen_random_uuid(), $1, lpad(to_hex(i), 64, '0'), (ARRAY['en','fr','de','pt-BR'])[1 + i % 4],
              jsonb_build_object('level', (i % 100)::text, 'plan', CASE WHEN i % 10 = 0 THEN 'gold' ELSE 'free' END),
              now() - ((i % 720) || ' hours')::interval, now() - ((i % 2000) || ' hours')::interval
         FROM generate_series(1, $2::int) AS i`,
      [created.id, installs],
    );
    await pool.query('VACUUM ANALYZE subscriptions');
    process.stderr.write(`${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  }
  return { pool, url, appId: created.id };
}
