// The files of one send (issue 30 point 3; docs/api.md "History and events of a send"): its history
// for getNotificationHistory (the installs it was sent to, or those that clicked) and its events
// for exportEvents (one row per install: sent, clicked, failed, unsubscribed). Each is one SELECT
// streamed by stream-export.ts. The installs come from what the chunk rows keep (their seqs,
// migration 050) and from the opens, joined to `subscriptions` when the file is read: an install
// erased before then (deleteUser, deleteSubscription) is in no file. Times are Unix seconds, as
// OneSignal's history file and Herald's reports give them.
import type { Queryable } from '../store/db.js';
import type { ExportLink } from './export-links.js';
import { LISTED_KINDS_SQL } from '../send/report.js';

const epoch = (column: string) => `extract(epoch FROM ${column})::bigint`;

/**
 * The installs Apple accepted the send for, chunk by chunk: one index scan of each chunk's seqs
 * (`seq = ANY`, in seq order), not a probe per device: 2.9 s against 8.7 s at 1,000,000 devices
 * (docs/benchmarks.md "History and events of a send").
 */
const SENT = `SELECT c.finished_at, s.id, s.user_id, s.external_id, s.platform
  FROM send_chunks c CROSS JOIN LATERAL (SELECT id, user_id, external_id, platform FROM subscriptions WHERE app_id = $1::uuid AND seq = ANY(c.sent_seqs)) s
 WHERE c.send_id = $2::bigint`;

/** OneSignal's device types (issue 39 point 6): 0 iOS, 1 Android, as the installs export writes them. */
const deviceType = (platform: string) => `CASE WHEN ${platform} = 'android' THEN 1 ELSE 0 END`;

/** OneSignal's history columns (no timestamp for `sent`), then Herald's device_type. */
const HISTORY_SENT = `SELECT id AS player_id, user_id AS onesignal_id, external_id, 'push' AS target_channel, ${deviceType('platform')} AS device_type FROM (${SENT}) sent`;

/** The installs that opened it (the app's open reports), with when. */
const HISTORY_CLICKED = `SELECT s.id AS player_id, s.user_id AS onesignal_id, s.external_id, 'push' AS target_channel, ${epoch('o.opened_at')} AS timestamp,
       ${deviceType('s.platform')} AS device_type
  FROM opens o JOIN subscriptions s ON s.id = o.subscription_id AND s.app_id = $1::uuid
 WHERE o.send_id = $2::bigint`;

/**
 * One row per install the send reached Apple for: when its chunk was recorded as sent or failed,
 * Apple's reason, whether Apple refused its token for good, and when it was opened. OneSignal's
 * `delivered` (confirmed delivery) is left out: Herald has no receipt from the device.
 */
const EVENTS = `WITH outcome AS (
    SELECT id, user_id, external_id, platform, finished_at AS sent_at, NULL::timestamptz AS failed_at, NULL::text AS reason, false AS unsubscribed FROM (${SENT}) sent
    UNION ALL
    SELECT s.id, s.user_id, s.external_id, s.platform, NULL, c.finished_at, f.reason, f.seq = ANY(c.unsubscribed_seqs)
      FROM send_chunks c CROSS JOIN LATERAL unnest(c.failed_seqs, c.failed_reasons) AS f(seq, reason)
      JOIN subscriptions s ON s.app_id = $1::uuid AND s.seq = f.seq
     WHERE c.send_id = $2::bigint)
  SELECT d.external_id AS external_user_id, d.id AS subscription_id, ${deviceType('d.platform')} AS device_type, ${epoch('d.sent_at')} AS sent,
         ${epoch('o.opened_at')} AS clicked, d.user_id AS onesignal_id, ${epoch('d.failed_at')} AS failed,
         CASE WHEN d.unsubscribed THEN ${epoch('d.failed_at')} END AS unsubscribed, d.reason AS failure_message
    FROM outcome d LEFT JOIN opens o ON o.send_id = $2::bigint AND o.subscription_id = d.id`;

const QUERIES = { history_sent: HISTORY_SENT, history_clicked: HISTORY_CLICKED, events: EVENTS } as const;

/** The header of each file, in its columns' order (the tests read the files against it). */
export const SEND_FILE_HEADERS: Readonly<Record<keyof typeof QUERIES, readonly string[]>> = {
  history_sent: ['player_id', 'onesignal_id', 'external_id', 'target_channel', 'device_type'],
  history_clicked: ['player_id', 'onesignal_id', 'external_id', 'target_channel', 'timestamp', 'device_type'],
  events: ['external_user_id', 'subscription_id', 'device_type', 'sent', 'clicked', 'onesignal_id', 'failed', 'unsubscribed', 'failure_message'],
};

/** The SELECT of a send's file and its values ($1 the app, $2 the send). */
export function sendFileQuery(link: ExportLink & { kind: keyof typeof QUERIES }): { sql: string; values: string[] } {
  return { sql: QUERIES[link.kind], values: [link.appId, String(link.sendId)] };
}

/** The file's name, as the download names it. */
export function sendFileName(link: Pick<ExportLink, 'kind' | 'sendId'>, day: string): string {
  return link.kind === 'events' ? `events_${link.sendId}_${day}.csv.gz` : `history_${link.kind === 'history_sent' ? 'sent' : 'clicked'}_${link.sendId}_${day}.csv.gz`;
}

export type SendOfApp = { found: false } | { found: true; chunksPruned: boolean };

/**
 * Whether the send is one of the app's (a notification or Live Activity push, as the stats call
 * reads it), and whether retention has already taken its chunk rows (the `sent` history and the
 * events go with them).
 */
export async function sendOfApp(db: Queryable, appId: string, sendId: number): Promise<SendOfApp> {
  const res = await db.query<{ pruned: boolean }>(
    `SELECT chunks_pruned_at IS NOT NULL AS pruned FROM sends WHERE id = $1 AND app_id = $2 AND ${LISTED_KINDS_SQL}`,
    [sendId, appId],
  );
  return res.rows[0] ? { found: true, chunksPruned: res.rows[0].pruned } : { found: false };
}
