// A send's history and events at 1,000,000 devices (--installs; issue 30 point 3): one finished
// send of the audience bench's app (bench/audience/seed.ts) whose 2,000 chunk rows hold what the
// sender's record keeps (core/delivery/chunks.ts: the installs' seqs by outcome, 1 % failed with
// Apple's reason, a third of those unsubscribed) and 100,000 opens. Reports the bytes those rows
// keep per device (pg_column_size of the chunk rows, before and without the history columns), then,
// through a fresh `herald api`, getNotificationHistory (sent, clicked) and exportEvents: the link's
// answer, time to the first and last byte of the gzip file, its size and the api's peak RSS.
// Figures: docs/benchmarks.md "History and events of a send".
//
//   npx tsx bench/history/run.ts [--installs 1000000]
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { createKey } from '../../core/apps/keys.js';
import { seededAudience } from '../audience/seed.js';
import { askLink, measureFiles } from '../audience/export.js';

const { values } = parseArgs({ options: { installs: { type: 'string', default: '1000000' } } });
const INSTALLS = Number(values.installs);

const { pool, url, appId } = await seededAudience(INSTALLS);
const send = await pool.query<{ id: string }>(
  `INSERT INTO sends (app_id, target_kind, request, status, total_recipients, sent, failed, chunks_total, chunks_done, finished_at)
   VALUES ($1, 'segment', '{"contents":{"en":"bench"},"target":{"kind":"segment","segment":"Subscribed Users"}}', 'approved', $2, $2 - $2 / 100, $2 / 100, ($2 + 499) / 500, ($2 + 499) / 500, now())
   RETURNING id`,
  [appId, INSTALLS],
);
const sendId = send.rows[0].id;
const t0 = Date.now();
// 500 installs a chunk in seq order, as the planner pages them; one in a hundred failed.
await pool.query(
  `INSERT INTO send_chunks (send_id, chunk, from_seq, to_seq, planned, state, sent, failed, finished_at, sent_seqs, failed_seqs, failed_reasons, unsubscribed_seqs)
   SELECT $1, chunk, min(seq) - 1, max(seq), count(*), 'done', count(*) FILTER (WHERE seq % 100 <> 0), count(*) FILTER (WHERE seq % 100 = 0), now(),
          array_agg(seq ORDER BY seq) FILTER (WHERE seq % 100 <> 0),
          coalesce(array_agg(seq ORDER BY seq) FILTER (WHERE seq % 100 = 0), '{}'),
          coalesce(array_agg(CASE WHEN seq % 300 = 0 THEN 'BadDeviceToken' ELSE 'PayloadTooLarge' END ORDER BY seq) FILTER (WHERE seq % 100 = 0), '{}'),
          coalesce(array_agg(seq ORDER BY seq) FILTER (WHERE seq % 300 = 0), '{}')
     FROM (SELECT seq, (row_number() OVER (ORDER BY seq) - 1) / 500 AS chunk FROM subscriptions WHERE app_id = $2) s
    GROUP BY chunk`,
  [sendId, appId],
);
await pool.query(`INSERT INTO opens (send_id, subscription_id, opened_at) SELECT $1, id, now() - (seq % 3600) * interval '1 second' FROM subscriptions WHERE app_id = $2 AND seq % 10 = 1`, [sendId, appId]);
await pool.query('ANALYZE send_chunks; ANALYZE opens');
process.stderr.write(`send ${sendId}: chunk rows and opens written in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);

const size = await pool.query<{ rows: string; with_history: string; history: string }>(
  `SELECT count(*) AS rows, sum(pg_column_size(c.*)) AS with_history,
          sum(pg_column_size(sent_seqs) + pg_column_size(failed_seqs) + pg_column_size(failed_reasons) + pg_column_size(unsubscribed_seqs)) AS history
     FROM send_chunks c WHERE send_id = $1`,
  [sendId],
);
const perDevice = (bytes: string) => Number(bytes) / INSTALLS;

const { key } = await createKey(pool, appId, { name: 'bench-history' });
const env = { HERALD_DATABASE_URL: url, HERALD_RATE_LIMITS: 'off', HERALD_STREAM_PREFIX: 'BHIST', HERALD_REDIS_PREFIX: 'bhist:' };
const history = (events: string) => (base: string) => askLink(`${base}/api/v1/notifications/${sendId}/history`, key, JSON.stringify({ app_id: appId, events }), 'destination_url');
const [sent, clicked, events] = await measureFiles(env, [
  history('sent'),
  history('clicked'),
  (base) => askLink(`${base}/api/v1/notifications/${sendId}/export_events?app_id=${appId}`, key, undefined, 'csv_file_url'),
]);
const round = (f: typeof sent) => ({ linkMs: Math.round(f.linkMs), firstByteMs: Math.round(f.firstByteMs), lastByteS: Number(f.lastByteS.toFixed(2)), gzipMb: Number(f.gzipMb.toFixed(1)), rssIdleMb: Math.round(f.rssIdleMb), rssPeakMb: Math.round(f.rssPeakMb) });
console.log(JSON.stringify({
  installs: INSTALLS,
  chunkRows: Number(size.rows[0].rows),
  historyBytesPerDevice: Number(perDevice(size.rows[0].history).toFixed(2)),
  chunkRowBytesPerDevice: Number(perDevice(size.rows[0].with_history).toFixed(2)),
  sent: round(sent),
  clicked: round(clicked),
  events: round(events),
  load: loadavg().map((l) => l.toFixed(1)),
}));
// The send goes (its chunk rows and opens with it): the next run starts from the same data.
await pool.query('DELETE FROM sends WHERE id = $1', [sendId]);
await pool.end();
