// Recording events in the caller's transaction, with the facts they report (docs/events.md): a
// chunk's device outcomes as one compact row (expand.ts makes the events when a destination reads
// it), a send's life step as one row, other device events (an open, a Live Activity token removed
// or ended) as one row per fact or per chunk. Nothing is written for an app with no destination,
// and the chunk's first statement already asks (core/delivery/chunks.ts): events off cost nothing.
import type { Queryable } from '../store/db.js';
import type { DeviceEventKind, NotificationEventKind } from './kinds.js';

/** A chunk's device outcomes, by install (subscriptions.id). */
export interface ChunkDeviceOutcomes {
  sent: string[];
  failed: Array<{ subscriptionId: string; reason: string }>;
  /** Refused for good: a failed delivery and an unsubscribe (Apple's 410 timestamp, ms). */
  unsubscribed: Array<{ subscriptionId: string; reason: string; appleTimestampMs?: number }>;
}

/** The stored form of a chunk record: short keys, arrays of arrays (500 devices ≈ 20 kB). */
export interface ChunkRecordBody {
  chunk: number;
  /** An install erased since is null (forgetInstallsInEvents). */
  s: Array<string | null>;
  f: Array<[string | null, string]>;
  u: Array<[string | null, string, number | null]>;
}

/** One device event of a `device_events` record: its kind, its install (null: erased since), its `event.data`. */
export type DeviceEventEntry = [DeviceEventKind, string | null, Record<string, unknown>];

/** The stored form of device events that are not a chunk's delivery outcomes (expand.ts: one event each, in order). */
export interface DeviceEventsRecordBody {
  d: DeviceEventEntry[];
}

export interface NotificationRecordBody {
  status?: string;
  sent?: number;
  failed?: number;
  skipped?: number;
  left_out?: number;
  stopped?: string | null;
}

// An app's records take their ids in commit order: each insert first takes the app's transaction
// lock (held to commit), so a record is committed before the next id of its app is drawn, and a
// dispatcher reading "ids after the last one delivered" never passes a record still to commit
// (docs/decisions.md "Issue 28"). Only apps with a destination write, and so lock.
const appLock = (appId: string) => `pg_advisory_xact_lock(hashtextextended('herald-events:' || ${appId}::text, 0))`;

const INSERT = {
  name: 'herald-record-events',
  text: `INSERT INTO event_records (app_id, send_id, kind, body)
         SELECT $1, $2, $3, $4::jsonb FROM (SELECT 1 FROM event_destinations WHERE app_id = $1 LIMIT 1) d, LATERAL (SELECT ${appLock('$1')}) l`,
};

/**
 * A chunk's device outcomes as one record, in ONE statement: the body is built by PostgreSQL, and
 * an install erased while the chunk was out (deleteUser, deleteSubscription) is recorded as null,
 * as forgetInstallsInEvents leaves it: the erasure has already scrubbed the records it could see.
 * `sentSeqsInRow`: the chunk's row, written just before in this transaction, holds the sent
 * installs' seqs in the same order (send_chunks.sent_seqs, the send's history), so the sent list is
 * read from there and its 500 ids never cross the wire a second time (about 18 kB a chunk: the
 * largest part of what events cost the sender). Nothing is written for an app with no destination;
 * recordChunk asks that in its first statement, so such an app does not even send the ids.
 */
export async function recordChunkEvents(db: Queryable, appId: string, sendId: number, chunk: number, outcomes: ChunkDeviceOutcomes, opts: { sentSeqsInRow?: boolean } = {}): Promise<void> {
  if (!outcomes.sent.length && !outcomes.failed.length && !outcomes.unsubscribed.length) return;
  const values = [
    appId, sendId, chunk,
    outcomes.failed.map((d) => d.subscriptionId), outcomes.failed.map((d) => d.reason),
    outcomes.unsubscribed.map((d) => d.subscriptionId), outcomes.unsubscribed.map((d) => d.reason), outcomes.unsubscribed.map((d) => d.appleTimestampMs ?? null),
  ];
  if (opts.sentSeqsInRow) await db.query({ ...INSERT_CHUNK_SENT_BY_SEQ, values });
  else await db.query({ ...INSERT_CHUNK, values: [...values, outcomes.sent] });
}

/** Each id of a list as it stands now: itself, or null if no install has it any more, in the list's order. */
const standing = (list: string, extra = '') =>
  `(SELECT coalesce(jsonb_agg(${extra ? `jsonb_build_array(s.id${extra})` : 's.id'} ORDER BY u.n), '[]'::jsonb) FROM ${list} LEFT JOIN subscriptions s ON s.id = u.id)`;

const insertChunk = (name: string, sent: string) => ({
  name,
  text: `INSERT INTO event_records (app_id, send_id, kind, body)
         SELECT $1, $2, 'chunk', jsonb_build_object('chunk', $3::int,
                  's', ${sent},
                  'f', ${standing('unnest($4::uuid[], $5::text[]) WITH ORDINALITY u(id, reason, n)', ', u.reason')},
                  'u', ${standing('unnest($6::uuid[], $7::text[], $8::float8[]) WITH ORDINALITY u(id, reason, ms, n)', ', u.reason, u.ms')})
           FROM (SELECT 1 FROM event_destinations WHERE app_id = $1 LIMIT 1) d, LATERAL (SELECT ${appLock('$1')}) l`,
});
const INSERT_CHUNK = insertChunk('herald-record-chunk-events', standing('unnest($9::uuid[]) WITH ORDINALITY u(id, n)'));
const INSERT_CHUNK_SENT_BY_SEQ = insertChunk(
  'herald-record-chunk-events-by-seq',
  `(SELECT coalesce(jsonb_agg(s.id ORDER BY u.n), '[]'::jsonb)
      FROM send_chunks c CROSS JOIN LATERAL unnest(c.sent_seqs) WITH ORDINALITY u(seq, n)
      LEFT JOIN subscriptions s ON s.app_id = $1 AND s.seq = u.seq
     WHERE c.send_id = $2 AND c.chunk = $3)`,
);

/**
 * Device events other than a chunk's outcomes, in the caller's transaction, as one row: an open
 * (`message.push.clicked`), Live Activity tokens removed or ended (a chunk's, or the app's call).
 * `sendId` null: the fact belongs to no send (the app removed a token), so its events carry no
 * `message`. The same probe first as a chunk's: an app with no destination pays nothing more.
 */
export async function recordDeviceEvents(db: Queryable, appId: string, sendId: number | null, entries: DeviceEventEntry[]): Promise<void> {
  if (!entries.length) return;
  const body: DeviceEventsRecordBody = { d: entries };
  await db.query({ ...INSERT, values: [appId, sendId, 'device_events', JSON.stringify(body)] });
}

/** A send's life step (its app read from the send row, in the caller's transaction). */
export async function recordNotificationEvent(db: Queryable, sendId: number, kind: Exclude<NotificationEventKind, 'notification.created'>, body: NotificationRecordBody = {}): Promise<void> {
  await db.query({
    name: 'herald-record-send-event',
    text: `INSERT INTO event_records (app_id, send_id, kind, body)
           SELECT s.app_id, s.id, $2, $3::jsonb
             FROM (SELECT app_id, id FROM sends WHERE id = $1 AND EXISTS (SELECT 1 FROM event_destinations d WHERE d.app_id = sends.app_id)) s,
                  LATERAL (SELECT ${appLock('s.app_id')}) l`,
    values: [sendId, kind, JSON.stringify(body)],
  });
}

/**
 * `notification.finished` of a send that closed outside finishIfComplete (core/delivery/finish.ts):
 * at its firing (a draft: the app paused or disabled, no credentials; approved: an empty
 * audience), or when it could not fire or be planned. Its status and counts as its row holds them
 * now, in the caller's transaction, after the transition's write.
 */
export async function recordClosedSend(db: Queryable, sendId: number, stopped: string | null): Promise<void> {
  await db.query({
    name: 'herald-record-closed-send',
    text: `INSERT INTO event_records (app_id, send_id, kind, body)
           SELECT s.app_id, s.id, 'notification.finished',
                  jsonb_build_object('status', s.status, 'sent', s.sent, 'failed', s.failed, 'skipped', s.skipped, 'left_out', s.left_out, 'stopped', $2::text)
             FROM (SELECT * FROM sends WHERE id = $1 AND EXISTS (SELECT 1 FROM event_destinations d WHERE d.app_id = sends.app_id)) s,
                  LATERAL (SELECT ${appLock('s.app_id')}) l`,
    values: [sendId, stopped],
  });
}

/**
 * `notification.created` for the accept statement (core/send/create-send.ts): a CTE over its
 * `input` rows (app_id, id, status, total), so the event is written in the same statement. The
 * apps' locks are taken in app order: two statements of several apps never wait on each other
 * crosswise.
 */
export const CREATED_EVENTS_CTE = `INSERT INTO event_records (app_id, send_id, kind, body)
       SELECT i.app_id, i.id, 'notification.created', jsonb_build_object('status', i.status, 'estimate', i.total)
         FROM (SELECT * FROM input WHERE EXISTS (SELECT 1 FROM event_destinations d WHERE d.app_id = input.app_id) ORDER BY app_id, id) i,
              LATERAL (SELECT ${appLock('i.app_id')}) l`;

/**
 * Erasure (core/users/erase.ts): an erased install's id leaves its app's chunk and device event
 * records. Each place holding it becomes null rather than going, so a record's event count, its
 * events' ids and a destination's place inside it (delivered_offset) stay what they were;
 * expand.ts makes such an event without its subscription. Scans the app's device records (written
 * only for an app with a destination). Returns how many records changed.
 */
export async function forgetInstallsInEvents(db: Queryable, appId: string, installIds: string[]): Promise<number> {
  if (!installIds.length) return 0;
  // Device events (opens, Live Activity tokens): the install is the second of each entry.
  const devices = await db.query(
    `UPDATE event_records SET body = jsonb_build_object('d', (SELECT jsonb_agg(CASE WHEN x->>1 = ANY($2::text[]) THEN jsonb_set(x, '{1}', 'null') ELSE x END ORDER BY n)
                                                            FROM jsonb_array_elements(body->'d') WITH ORDINALITY AS e(x, n)))
      WHERE app_id = $1 AND kind = 'device_events' AND EXISTS (SELECT 1 FROM jsonb_array_elements(body->'d') x WHERE x->>1 = ANY($2::text[]))`,
    [appId, installIds],
  );
  const hit = (path: string, first: string) => `EXISTS (SELECT 1 FROM jsonb_array_elements(body->'${path}') x WHERE ${first} = ANY($2::text[]))`;
  const keep = (path: string, first: string, blank: string) =>
    `(SELECT coalesce(jsonb_agg(CASE WHEN ${first} = ANY($2::text[]) THEN ${blank} ELSE x END ORDER BY n), '[]') FROM jsonb_array_elements(body->'${path}') WITH ORDINALITY AS e(x, n))`;
  const res = await db.query(
    `UPDATE event_records SET body = body || jsonb_build_object(
            's', ${keep('s', "x #>> '{}'", "'null'::jsonb")},
            'f', ${keep('f', 'x->>0', "jsonb_set(x, '{0}', 'null')")},
            'u', ${keep('u', 'x->>0', "jsonb_set(x, '{0}', 'null')")})
      WHERE app_id = $1 AND kind = 'chunk' AND (${hit('s', "x #>> '{}'")} OR ${hit('f', 'x->>0')} OR ${hit('u', 'x->>0')})`,
    [appId, installIds],
  );
  return (res.rowCount ?? 0) + (devices.rowCount ?? 0);
}
