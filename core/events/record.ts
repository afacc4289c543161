// Recording events in the caller's transaction, with the facts they report (docs/events.md): a
// chunk's device outcomes as one compact row (expand.ts makes the events when a destination reads
// it), a send's life step as one row. Nothing is written for an app with no destination, so
// delivery pays one indexed probe per chunk and nothing more when events are off.
import type { Queryable } from '../store/db.js';
import type { NotificationEventKind } from './kinds.js';

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
  s: string[];
  f: Array<[string, string]>;
  u: Array<[string, string, number | null]>;
}

export interface NotificationRecordBody {
  status?: string;
  sent?: number;
  failed?: number;
  skipped?: number;
  left_out?: number;
  stopped?: string | null;
}

const INSERT = {
  name: 'herald-record-events',
  text: `INSERT INTO event_records (app_id, send_id, kind, body)
         SELECT $1, $2, $3, $4::jsonb WHERE EXISTS (SELECT 1 FROM event_destinations WHERE app_id = $1)`,
};

export async function recordChunkEvents(db: Queryable, appId: string, sendId: number, chunk: number, outcomes: ChunkDeviceOutcomes): Promise<void> {
  if (!outcomes.sent.length && !outcomes.failed.length && !outcomes.unsubscribed.length) return;
  const body: ChunkRecordBody = {
    chunk,
    s: outcomes.sent,
    f: outcomes.failed.map((d) => [d.subscriptionId, d.reason]),
    u: outcomes.unsubscribed.map((d) => [d.subscriptionId, d.reason, d.appleTimestampMs ?? null]),
  };
  await db.query({ ...INSERT, values: [appId, sendId, 'chunk', JSON.stringify(body)] });
}

/** A send's life step (its app read from the send row, in the caller's transaction). */
export async function recordNotificationEvent(db: Queryable, sendId: number, kind: Exclude<NotificationEventKind, 'notification.created'>, body: NotificationRecordBody = {}): Promise<void> {
  await db.query({
    name: 'herald-record-send-event',
    text: `INSERT INTO event_records (app_id, send_id, kind, body)
           SELECT s.app_id, s.id, $2, $3::jsonb FROM sends s
            WHERE s.id = $1 AND EXISTS (SELECT 1 FROM event_destinations d WHERE d.app_id = s.app_id)`,
    values: [sendId, kind, JSON.stringify(body)],
  });
}

/**
 * `notification.created` for the accept statement (core/send/create-send.ts): a CTE over its
 * `input` rows (app_id, id, status, total), so the event is written in the same statement.
 */
export const CREATED_EVENTS_CTE = `INSERT INTO event_records (app_id, send_id, kind, body)
       SELECT i.app_id, i.id, 'notification.created', jsonb_build_object('status', i.status, 'estimate', i.total)
         FROM input i WHERE EXISTS (SELECT 1 FROM event_destinations d WHERE d.app_id = i.app_id)`;
