// A claimed chunk's work in the store (claim.ts takes it): load its devices (deterministic: the
// recorded keyset bounds, or the send's id list), and record its outcome together with the send's
// counters in one transaction keyed by (send, chunk).
import type { Pool, Queryable } from '../store/db.js';
import { inTransaction } from '../store/db.js';
import { getApp, type AppRecord } from '../apps/app-store.js';
import { audienceCondition, deviceTokenColumn, narrowing, Params } from '../audience/filter.js';
import { loadActivityDevices } from '../live-activities/activity-audience.js';
import type { LiveActivityRequest, SendRequest } from '../send-model/request.js';
import { writeTransition } from '../send-model/transitions.js';
import type { ClaimedChunk } from './claim.js';
import { unsubscribeRefused } from '../subscriptions/subscription-store.js';
import type { RefusedToken } from '../send-model/devices.js';
import { finishIfComplete, stopWithin, type FinishedSend } from './finish.js';
import { settleLiveActivityTokens } from '../live-activities/token-events.js';
import { removeRefusedPushTypeTokens } from '../subscriptions/push-type-tokens.js';
import type { OwnTokenPushType } from '../formats/push-type.js';
import { isUuid } from '../formats/uuid.js';
import { aliasInstalls } from '../audience/alias-target.js';
import { recordChunkEvents } from '../events/record.js';
import type { ChunkDevices, ChunkHistory, Device } from '../send-model/devices.js';

export type { ChunkDevices, ChunkHistory, Device } from '../send-model/devices.js';

export type ChunkState = 'planned' | 'working' | 'done' | 'left_out';


/** The devices of a chunk, the same on every attempt (up to subscriptions changed in between). */
export async function loadChunkDevices(db: Queryable, app: AppRecord, req: SendRequest, bounds: Pick<ClaimedChunk, 'fromSeq' | 'toSeq' | 'planned' | 'zone' | 'entries'>): Promise<ChunkDevices> {
  const target = req.target;
  // A Live Activity's update or end: the installs of the chunk, with their activity's token.
  if (target.kind === 'activity') return loadActivityDevices(db, app.id, target.activityId, bounds.entries ?? []);
  if (target.kind === 'aliases') return loadAliasDevices(db, app, target, bounds.entries ?? target.ids);
  if (target.kind === 'subscription_ids' || target.kind === 'external_ids') {
    const byId = target.kind === 'subscription_ids';
    // A timezone list send's chunk counts for its own share of the ids (timezone.ts).
    const given = bounds.entries ?? target.ids;
    const ids = byId ? given.filter(isUuid).map((id) => id.toLowerCase()) : given;
    // excluded_segments (and a Live Activity start's token) narrows a list too: those installs
    // are left as if unknown (skipped).
    const params = new Params([app.id, ids]);
    const narrowed = narrowing(app, target, params);
    const token = deviceTokenColumn(target, params);
    const res = await db.query<Device>(
      byId
        ? `SELECT s.id::text AS entry, s.id::text AS "subscriptionId", s.seq::text AS seq, ${token} AS token, s.language, s.environment, s.platform FROM subscriptions s
            WHERE s.app_id = $1 AND s.subscribed AND s.id = ANY($2::uuid[])${narrowed}`
        : `SELECT s.external_id AS entry, s.id::text AS "subscriptionId", s.seq::text AS seq, ${token} AS token, s.language, s.environment, s.platform FROM subscriptions s
            WHERE s.app_id = $1 AND s.subscribed AND s.external_id = ANY($2::text[])${narrowed}
           ORDER BY s.seq`,
      params.values,
    );
    // Entries as given (a subscription id matches whatever its case was in the request).
    const entries = byId ? given.map((id) => id.toLowerCase()) : given;
    return { devices: res.rows, entries };
  }
  const params = new Params([app.id, bounds.fromSeq ?? 0, bounds.toSeq ?? 0, bounds.planned]);
  const condition = audienceCondition(app, target, params);
  // A timezone send's chunk: the devices of its zone only (timezone.ts). A last-active send's: the
  // installs it recorded at planning, by seq (last-active.ts), still within its bounds.
  const zone = bounds.zone
    ? ` AND s.timezone IS NOT DISTINCT FROM ${params.add(bounds.zone.timezone)}::text`
    : bounds.entries
      ? ` AND s.seq = ANY(${params.add(bounds.entries)}::bigint[])`
      : '';
  const token = deviceTokenColumn(target, params);
  const res = await db.query<{ seq: number; id: string; token: string; language: string | null; environment: Device['environment']; platform: Device['platform'] }>(
    `SELECT seq, s.id::text AS id, ${token} AS token, language, environment, platform FROM subscriptions s
      WHERE s.app_id = $1 AND s.subscribed AND s.seq > $2 AND s.seq <= $3 AND ${condition}${zone}
      ORDER BY seq LIMIT $4`,
    params.values,
  );
  const devices = res.rows.map((r) => ({ entry: String(r.seq), subscriptionId: r.id, seq: String(r.seq), token: r.token, language: r.language, environment: r.environment, platform: r.platform }));
  return { devices, entries: devices.map((d) => d.entry) };
}

/** The installs of the users an include_aliases list names (core/audience/alias-target.ts), each with the id that named it. */
async function loadAliasDevices(db: Queryable, app: AppRecord, target: Extract<SendRequest['target'], { kind: 'aliases' }>, given: string[]): Promise<ChunkDevices> {
  const params = new Params([app.id]);
  const members = aliasInstalls(target.label, given, params);
  const narrowed = narrowing(app, target, params);
  const token = deviceTokenColumn(target, params);
  const res = await db.query<Device>(
    `SELECT ${members.entry} AS entry, s.id::text AS "subscriptionId", s.seq::text AS seq, ${token} AS token, s.language, s.environment, s.platform FROM subscriptions s ${members.join}
      WHERE s.app_id = $1 AND s.subscribed AND ${members.where}${narrowed} ORDER BY s.seq`,
    params.values,
  );
  return { devices: res.rows, entries: given };
}

export interface ChunkOutcome {
  sent: number;
  failed: number;
  /** The Android share of `sent` and `failed` (absent: none); iOS's is the rest (migration 085). */
  android?: { sent: number; failed: number };
  skipped: number;
  /** Entries not sent because the send stopped (credentials refused) inside this chunk. */
  leftOut: number;
  /** Tokens Apple refused for good (410, BadDeviceToken, DeviceTokenNotForTopic): unsubscribed in the same transaction. */
  unsubscribe: RefusedToken[];
  /** APNs refused the app's credentials (their reason): the send stops in the same transaction. */
  stop?: string;
  /** The installs Apple accepted it for, and those it failed for (with why): their events. */
  sentTo?: string[];
  failedFor?: Array<{ subscriptionId: string; reason: string }>;
  /** A Live Activity `end`: the update tokens Apple accepted it for, dropped in the same transaction. */
  ended?: Array<{ subscriptionId: string; token: string }>;
  /** Each install's outcome by seq, kept in the chunk row for the send's history (absent: none kept). */
  history?: ChunkHistory;
}

export interface RecordResult {
  /** false: the chunk had already been recorded (a redelivery); nothing moved. */
  counted: boolean;
  finished?: FinishedSend;
}

/** One chunk's record: whose send, which chunk, what happened to its devices. */
export interface ChunkRecord {
  appId: string;
  sendId: number;
  chunk: number;
  outcome: ChunkOutcome;
  /** The send's Live Activity request, when it went to Live Activity tokens. */
  liveActivity?: LiveActivityRequest;
  /** The send's own-token push type (VoIP, location, …), when it has one. */
  pushToken?: OwnTokenPushType;
}

/**
 * Records a chunk's outcome and moves the send's counters, once: the conditional close of the
 * (send, chunk) row decides, in the same transaction as the counters, whether anything moves.
 * A Live Activity push (`liveActivity`) went to its own tokens: Apple's refusals remove those,
 * never the install's subscription, and an `end` drops the tokens it was delivered to. So does a
 * push of a type with its own token (`pushToken`: VoIP, location, …): a refusal removes that token only.
 */
export async function recordChunk(pool: Pool, record: ChunkRecord): Promise<RecordResult> {
  const { appId, sendId, chunk, outcome, liveActivity, pushToken } = record;
  return inTransaction(pool, async (db) => {
    // Lock order everywhere: the send row first, then its chunks.
    // With it, whether the app has an event destination (its chunk events are recorded below).
    const locked = await db.query<{ status: string; events: boolean }>(
      'SELECT status, EXISTS (SELECT 1 FROM event_destinations WHERE app_id = $2) AS events FROM sends WHERE id = $1 FOR UPDATE',
      [sendId, appId],
    );
    // The conditional close and the counters in one statement: the counters move only if the
    // close changed the row.
    const moved = await db.query<{ chunks_done: number; chunks_total: number | null; stopped: string | null }>({
      name: 'herald-record-chunk',
      text: `WITH closed AS (
           UPDATE send_chunks SET state = 'done', sent = $3, failed = $4, skipped = $5, left_out = $6, lease_until = NULL, finished_at = now(),
                  sent_seqs = $7, failed_seqs = $8, failed_reasons = $9, unsubscribed_seqs = $10, sent_android = $11, failed_android = $12
            WHERE send_id = $1 AND chunk = $2 AND state IN ('planned', 'working') RETURNING 1)
         UPDATE sends SET sent = sent + $3, failed = failed + $4, skipped = skipped + $5, left_out = left_out + $6,
                sent_android = sent_android + $11, failed_android = failed_android + $12,
                chunks_done = chunks_done + 1, updated_at = now()
          WHERE id = $1 AND EXISTS (SELECT 1 FROM closed)
      RETURNING chunks_done, chunks_total, stopped`,
      values: [sendId, chunk, outcome.sent, outcome.failed, outcome.skipped, outcome.leftOut, ...historyValues(outcome.history, pushToken !== undefined),
        outcome.android?.sent ?? 0, outcome.android?.failed ?? 0],
    });
    const s = moved.rows[0];
    if (!s) return { counted: false };
    // Apple's refusals for good: a Live Activity's tokens (and the tokens an end reached) go, with
    // their events; a token of its own push type goes alone; else the installs are unsubscribed.
    let unsubscribed = new Set<string>();
    if (liveActivity) await settleLiveActivityTokens(db, appId, sendId, liveActivity, outcome.unsubscribe, outcome.ended ?? []);
    else if (pushToken) await removeRefusedPushTypeTokens(db, appId, pushToken, outcome.unsubscribe);
    else unsubscribed = await unsubscribeRefused(db, appId, outcome.unsubscribe);
    if (locked.rows[0]?.status === 'queued') await writeTransition(db, sendId, 'queued', 'chunk_started', {});
    // Its devices' events, one row for the chunk (a Live Activity's: its tokens' events above); late in
    // the transaction, as it takes the app's event lock until the commit (core/events/record.ts).
    // A refusal that unsubscribed nobody (registered again after Apple's 410, unsubscribed already,
    // a VoIP or other own-type token) is a failed push only: no unsubscribe to report.
    if (!liveActivity && locked.rows[0]?.events) {
      const refused = outcome.unsubscribe;
      const sent = outcome.sentTo ?? [];
      await recordChunkEvents(db, appId, sendId, chunk, {
        sent,
        failed: [...(outcome.failedFor ?? []), ...refused.filter((r) => !unsubscribed.has(r.subscriptionId)).map((r) => ({ subscriptionId: r.subscriptionId, reason: r.reason }))],
        unsubscribed: refused.filter((r) => unsubscribed.has(r.subscriptionId)),
        // The history's sent seqs are the sent installs in the same order when every one has its
        // seq (sender/tally.ts pushes both for each): then the record reads them from the row.
      }, { sentSeqsInRow: outcome.history !== undefined && outcome.history.sent.length === sent.length });
    }
    if (outcome.stop) return { counted: true, finished: await stopWithin(db, sendId, 'credentials', outcome.stop) };
    const last = s.stopped !== null || (s.chunks_total !== null && s.chunks_done >= s.chunks_total);
    const finished = last ? await finishIfComplete(db, sendId) : undefined;
    return { counted: true, finished };
  });
}

/**
 * The four history columns of a chunk row ($7–$10 of the record): NULL when none is kept. A refused
 * token of its own push type (`ownToken`: VoIP, location, …) went alone and unsubscribed nobody, so
 * the send's events file (core/exports/send-files.ts) shows those installs failed, not unsubscribed.
 */
function historyValues(history: ChunkHistory | undefined, ownToken: boolean): Array<string[] | null> {
  if (!history) return [null, null, null, null];
  return [history.sent, history.failed, history.reasons, ownToken ? [] : history.unsubscribed];
}

export async function loadSendForDelivery(db: Queryable, sendId: number): Promise<{ request: SendRequest; app: AppRecord } | undefined> {
  const res = await db.query('SELECT app_id, request FROM sends WHERE id = $1', [sendId]);
  const r = res.rows[0];
  if (!r) return undefined;
  const app = await getApp(db, r.app_id);
  return app ? { request: r.request as SendRequest, app } : undefined;
}
