// What the Live Activity benchmarks share (run.ts, broadcast.ts): their apps, the alert
// broadcast's audience, and the figures' summary.
import { readFile } from 'node:fs/promises';
import type { Pool } from '../../core/store/db.js';
import { upsertApp, setCredentials, getApp, setInvoiceOverdue, type AppRecord } from '../../core/apps/app-store.js';
import { generateApnsKeyPair, randomAppleId } from '../../apns-sim/index.js';
import { benchDatabase } from '../support/bench-database.js';

export const loadAverage = async () => (await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ');

/** The benchmark's database (kept between runs), its APNs key, and the alert broadcast's app with `devices` installs. */
export async function alertBroadcastSetup(devices: number) {
  const { pool, url } = await benchDatabase(`herald_bench_la_${devices}`, { fresh: false });
  await pool.query('DELETE FROM sends');
  const apnsKey = generateApnsKeyPair();
  const teamId = randomAppleId();
  const big = await benchApp(pool, 'broadcaster', apnsKey, teamId);
  await fillAlertAudience(pool, big.id, devices);
  return { pool, url, apnsKey, teamId, big };
}

export async function benchApp(pool: Pool, name: string, key: ReturnType<typeof generateApnsKeyPair>, teamId: string): Promise<AppRecord> {
  const a = await upsertApp(pool, { name, bundleId: `com.example.${name}` });
  await setCredentials(pool, a.id, { kind: 'token', keyId: key.keyId, teamId, material: Buffer.from(key.privateKeyP8) });
  await setInvoiceOverdue(pool, a.id, false);
  return (await getApp(pool, a.id))!;
}

/** `devices` subscribed installs of the broadcasting app, inserted once (a later run reuses them). */
export async function fillAlertAudience(pool: Pool, appId: string, devices: number): Promise<void> {
  const have = Number((await pool.query('SELECT count(*) FROM subscriptions WHERE app_id = $1 AND subscribed', [appId])).rows[0].count);
  if (have === devices) return;
  await pool.query('DELETE FROM subscriptions WHERE app_id = $1', [appId]);
  await pool.query(
    `INSERT INTO subscriptions (id, app_id, token, language, last_active)
     SELECT gen_random_uuid(), $1::uuid, md5($1::text || i) || md5(i || $1::text), 'en', now() FROM generate_series(1, $2::int) AS i`,
    [appId, devices],
  );
  await pool.query('VACUUM ANALYZE subscriptions');
}

/** `size` new installs of the app, each holding an update token for `activity`; their tokens. */
export async function activityTokens(pool: Pool, appId: string, activity: string, size: number): Promise<string[]> {
  const res = await pool.query<{ token: string }>(
    `WITH s AS (INSERT INTO subscriptions (id, app_id, token, language) SELECT gen_random_uuid(), $1, md5($2 || i) || md5(i || $2), 'en' FROM generate_series(1, $3::int) i RETURNING id, token)
     INSERT INTO live_activity_tokens (app_id, kind, activity, subscription_id, token) SELECT $1, 'update', $2, id, reverse(token) FROM s RETURNING token`,
    [appId, activity, size],
  );
  return res.rows.map((r) => r.token);
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

export const summary = (xs: number[]) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length ? `p50 ${percentile(s, 50)} ms, p99 ${percentile(s, 99)} ms, max ${s[s.length - 1]} ms (${s.length})` : 'none';
};

export const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The alert broadcast to every install of the broadcasting app, through the api; resolves once
 * its first chunks are delivered (it is running). `pauseAndReport` says how far it went and
 * pauses it (invoice overdue) until it stops, for the next run.
 */
export async function startAlertBroadcast(pool: Pool, base: string, key: string, appId: string) {
  const res = await fetch(`${base}/api/v1/notifications`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Key ${key}` },
    body: JSON.stringify({ app_id: appId, contents: { en: 'Sale' }, included_segments: ['Subscribed Users'] }),
  });
  const id = ((await res.json()) as { id: number }).id;
  const started = Date.now();
  while ((await pool.query('SELECT chunks_done FROM sends WHERE id = $1', [id])).rows[0].chunks_done < 4) await wait(100);
  return {
    async pauseAndReport(): Promise<string> {
      const p = (await pool.query('SELECT sent, chunks_done, chunks_total, status FROM sends WHERE id = $1', [id])).rows[0];
      const line = `alert broadcast: ${p.sent} devices sent in ${((Date.now() - started) / 1000).toFixed(0)} s (${p.chunks_done}/${p.chunks_total} chunks, ${p.status}); paused now`;
      await setInvoiceOverdue(pool, appId, true);
      for (let i = 0; i < 600; i++) {
        const r = await pool.query('SELECT status FROM sends WHERE id = $1', [id]);
        if (r.rows[0].status === 'approved' || r.rows[0].status === 'draft') break;
        await wait(100);
      }
      await setInvoiceOverdue(pool, appId, false);
      return line;
    },
  };
}
