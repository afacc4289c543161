// Accepting a send: the one code path behind POST /api/v1/notifications and a `Send` applied with
// kubectl. Measures the audience, decides the status (transitions table, `accept`), records the
// send, its created event (outbox) and, for a list send, its one chunk in one statement, publishes
// after commit, wakes the senders, and returns the answer. A segment or tag send is planned by
// the first sender free (core/delivery/planner.ts planNext).
import { CREATED_EVENTS_CTE } from '../events/record.js';
import type { Pool, PoolClient, Queryable } from '../store/db.js';
import { unknownListIds } from '../audience/unknown-ids.js';
import type { CreatedSend } from '../send-model/response.js';
import { inTransaction } from '../store/db.js';
import { GroupedStatement, perPool } from '../store/coalesce.js';
import type { Bus } from '../bus/jetstream.js';
import { SUBJECTS } from '../bus/subjects.js';
import { wakeSenders } from '../delivery/wake.js';
import { CHUNK_SIZE, listBounds } from '../delivery/planner.js';
import { publishAndDelete, type EnqueuedMessage } from '../bus/outbox.js';
import type { Logger } from '../log.js';
import type { AppRecord } from '../apps/app-store.js';
import { measureAudience } from '../audience/measure.js';
import { ValidationError } from '../errors.js';
import type { SendRequest } from '../send-model/request.js';
import type { SendSource } from '../formats/send-source.js';
import { audienceTooLargeMessage, decideStatus, MAX_AUDIENCE } from '../send-model/status.js';
import { isConditionTarget, TARGET_KINDS } from '../audience/target-kinds.js';
import { statusInSql, type SendStatus } from '../send-model/states.js';
import { activityInstallsSql } from '../live-activities/activity-audience.js';

export interface CreateSendDeps {
  pool: Pool;
  bus: Bus;
  logger: Logger;
}

export interface CreateSendOptions {
  source?: SendSource;
  /** Runs inside the recording transaction (e.g. the idempotency record), so both commit or neither. */
  withinTransaction?: (db: PoolClient, created: CreatedSend) => Promise<void>;
  /**
   * Called once the send is sure to be accepted (its audience counted and within the cap), as its
   * record is written: a Live Activity update's broadcast to Apple leaves here, without waiting
   * for the record's commit (the fast lane, docs/live-activities.md "Speed").
   */
  onAccepted?: () => void;
  /** Called once the send is durable (committed), before its bus messages are published. */
  onRecorded?: (sendId: number) => void;
}

export interface MessageTemplate {
  subject: string;
  msgIdPrefix: string;
  payload: Record<string, unknown>;
}

/** A notification, or a Live Activity push (the same engine, recorded apart: docs/live-activities.md). */
export type SendKind = 'push' | 'live_activity';

/** The send-created event the controller's mirror and metrics read. */
export interface SendCreatedEvent {
  sendId: number;
  appId: string;
  /** Absent in events written before Live Activities: a push. */
  kind?: SendKind;
  status: SendStatus;
  targetKind: SendRequest['target']['kind'];
  broadcast: boolean;
  scheduled: boolean;
  source: SendSource;
}

export async function createSend(deps: CreateSendDeps, app: AppRecord, req: SendRequest, opts: CreateSendOptions = {}): Promise<CreatedSend> {
  const source = opts.source ?? 'api';
  const [{ estimate, maxSeq }, unknown] = await Promise.all([measureAudience(deps.pool, app, req.target), unknownListIds(deps.pool, app.id, req.target)]);
  // A kind with no bound of its own (a condition, an activity's tokens): the same cap.
  if (TARGET_KINDS[req.target.kind].capped && estimate > MAX_AUDIENCE) throw new ValidationError([audienceTooLargeMessage(estimate)]);
  opts.onAccepted?.();
  const kind: SendKind = req.liveActivity ? 'live_activity' : 'push';
  const broadcast = isConditionTarget(req.target);
  const decision = decideStatus(req, app, estimate, broadcast);

  const event: Omit<SendCreatedEvent, 'sendId'> = {
    appId: app.id,
    kind,
    status: decision.status,
    targetKind: req.target.kind,
    broadcast,
    scheduled: decision.status === 'scheduled',
    source,
  };
  // The bus messages of the send, as templates: the send id is filled in by the database.
  const templates: MessageTemplate[] = [{ subject: SUBJECTS.sendEvent('created'), msgIdPrefix: 'send-created-', payload: event }];
  // A list send delivered now is one chunk (at most 500 ids), recorded with the send; so is a
  // Live Activity's update to at most 500 tokens (its installs read in the same statement), so a
  // sender claims it at once without a planning step. A larger one is planned by the planner.
  const activity = req.target.kind === 'activity' ? req.target.activityId : null;
  const listChunk = !decision.plan || broadcast ? 0 : activity === null ? (listBounds(req)[0]?.planned ?? 0) : estimate <= CHUNK_SIZE ? estimate : 0;
  const answer = (id: number): CreatedSend => ({
    httpStatus: decision.httpStatus,
    body: { id, status: decision.status, sent: 0, failed: 0, skipped: 0, estimate, message: decision.message, ...(unknown ? { errors: unknown } : {}) },
  });

  const row: NewSendRow = {
    appId: app.id,
    kind,
    source,
    targetKind: req.target.kind,
    request: JSON.stringify(req),
    status: decision.status,
    message: decision.message,
    estimate,
    maxSeq,
    throttle: req.throttleRatePerMinute ?? null,
    sendAfter: req.sendAfter ?? null,
    listChunk,
    activity,
    templates,
  };
  const [{ id, outboxIds }] = opts.withinTransaction
    ? await inTransaction(deps.pool, async (db) => {
        const recorded = await recordSends(db, [row]);
        await opts.withinTransaction!(db, answer(recorded[0].id));
        return recorded;
      })
    : await groupedRecorderOf(deps.pool).submit([row]);
  const created = answer(id);
  opts.onRecorded?.(id);
  const outbox: EnqueuedMessage[] = templates.map((t, i) => ({
    id: outboxIds[i],
    subject: t.subject,
    msgId: `${t.msgIdPrefix}${id}`,
    payload: { ...t.payload, sendId: id },
  }));

  // Publish before answering, so the work is on the bus when the caller hears 202; if NATS is
  // down the outbox relay publishes later and the answer does not wait for it.
  await publishAndDelete(deps.pool, deps.bus, outbox).catch((error) =>
    deps.logger.warn({ err: error, sendId: created.body.id }, 'publish deferred to the outbox relay'),
  );
  if (decision.plan) wakeSenders(deps.bus);
  return created;
}

/** One send as the recording statement takes it. */
export interface NewSendRow {
  appId: string;
  kind: SendKind;
  source: SendSource;
  targetKind: SendRequest['target']['kind'];
  request: string;
  status: SendStatus;
  message: string;
  estimate: number;
  maxSeq: number | null;
  throttle: number | null;
  sendAfter: Date | null;
  /** Devices of a list send's one chunk, recorded with it; 0 = planned later. */
  listChunk: number;
  /** A Live Activity update's activity: its one chunk holds the installs with a token for it. */
  activity: string | null;
  templates: MessageTemplate[];
}

/** A Live Activity update's one chunk: its activity's installs (the planner's first chunk, the same statement). */
const FIRST_ACTIVITY_CHUNK = activityInstallsSql('input.app_id', 'input.activity', 'input.list_chunk');

const RECORD_SENDS = `WITH input AS MATERIALIZED (
       SELECT t.*, nextval(pg_get_serial_sequence('sends', 'id')) AS id
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::jsonb[], $5::text[], $6::text[], $7::int[], $8::bigint[],
                     $9::int[], $10::timestamptz[], $11::int[], $16::text[], $17::text[])
              WITH ORDINALITY AS t(app_id, source, target_kind, request, status, message, total, max_seq, throttle, send_after, list_chunk, kind, activity, n)
     ), s AS (
       INSERT INTO sends (id, app_id, kind, source, target_kind, request, status, message, total_recipients, audience_max_seq,
                          throttle_per_min, send_after, finished_at, chunks_total)
       OVERRIDING SYSTEM VALUE
       SELECT id, app_id, kind, source, target_kind, request, status, message, total, max_seq, throttle, send_after,
              CASE WHEN ${statusInSql('status', 'final')} THEN now() END, CASE WHEN list_chunk > 0 THEN 1 END
         FROM input ORDER BY n
     ), k AS (
       INSERT INTO send_chunks (send_id, chunk, planned, entries)
       SELECT id, 0, list_chunk, CASE WHEN activity IS NOT NULL THEN ${FIRST_ACTIVITY_CHUNK} END
         FROM input WHERE list_chunk > 0
     ), o AS (
       INSERT INTO outbox (subject, msg_id, payload)
       SELECT m.subject, m.prefix || i.id, m.payload || jsonb_build_object('sendId', i.id)
         FROM unnest($12::int[], $13::text[], $14::text[], $15::jsonb[]) WITH ORDINALITY AS m(send_n, subject, prefix, payload, k)
         JOIN input i ON i.n = m.send_n
        ORDER BY m.k
       RETURNING msg_id, id
     ), e AS (
       ${CREATED_EVENTS_CTE}
     )
     SELECT (SELECT array_agg(id ORDER BY n) FROM input)::text[] AS send_ids,
            (SELECT json_agg(json_build_array(msg_id, id::text)) FROM o) AS outbox`;

/**
 * Records sends, their list chunk and their outbox rows in one statement: atomic without
 * BEGIN/COMMIT, and one round trip and one commit for every send written together (group
 * commit: concurrent requests share it, each answered only once its row is durable).
 * The ids are drawn first so each row's outbox messages name their send.
 */
export async function recordSends(db: Queryable, rows: NewSendRow[]): Promise<Array<{ id: number; outboxIds: number[] }>> {
  const messages = rows.flatMap((r, i) => r.templates.map((t) => ({ send: i + 1, ...t })));
  const res = await db.query<{ send_ids: string[]; outbox: Array<[string, string]> | null }>({
    name: 'herald-record-sends', // prepared once per connection: the hottest statement
    text: RECORD_SENDS,
    values: [
      rows.map((r) => r.appId),
      rows.map((r) => r.source),
      rows.map((r) => r.targetKind),
      rows.map((r) => r.request),
      rows.map((r) => r.status),
      rows.map((r) => r.message),
      rows.map((r) => r.estimate),
      rows.map((r) => r.maxSeq),
      rows.map((r) => r.throttle),
      rows.map((r) => r.sendAfter),
      rows.map((r) => r.listChunk),
      messages.map((m) => m.send),
      messages.map((m) => m.subject),
      messages.map((m) => m.msgIdPrefix),
      messages.map((m) => JSON.stringify(m.payload)),
      rows.map((r) => r.kind),
      rows.map((r) => r.activity),
    ],
  });
  const ids = res.rows[0].send_ids.map(Number);
  const outboxId = new Map((res.rows[0].outbox ?? []).map(([msgId, id]) => [msgId, Number(id)]));
  return rows.map((r, i) => ({ id: ids[i], outboxIds: r.templates.map((t) => outboxId.get(t.msgIdPrefix + ids[i])!) }));
}

const groupedRecorderOf = perPool((pool: Pool) => new GroupedStatement<NewSendRow, { id: number; outboxIds: number[] }>((rows) => recordSends(pool, rows)));
