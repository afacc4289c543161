// Accepting a send: the one code path behind POST /api/v1/notifications and a `Send` applied with
// kubectl. Measures the audience, decides the status (transitions table, `accept`), records the
// send, its created event (outbox) and, for a list send, its one chunk in one statement, publishes
// after commit, wakes the senders, and returns the answer. A segment or tag send is planned by
// the first sender free (core/delivery/planner.ts planNext).
import type { Pool, PoolClient, Queryable } from '../store/db.js';
import { unknownListIds, type UnknownIds } from '../audience/unknown-ids.js';
import { inTransaction } from '../store/db.js';
import type { Bus } from '../bus/jetstream.js';
import { SUBJECTS } from '../bus/subjects.js';
import { wakeSenders } from '../delivery/wake.js';
import { listBounds } from '../delivery/planner.js';
import { publishAndDelete, type EnqueuedMessage } from '../bus/outbox.js';
import type { Logger } from '../log.js';
import type { AppRecord } from '../apps/app-store.js';
import { measureAudience } from '../audience/measure.js';
import { ValidationError } from '../errors.js';
import type { SendRequest } from './request.js';
import type { SendSource } from './report.js';
import { audienceTooLargeMessage, decideStatus, isBroadcast, MAX_AUDIENCE, type SendStatus } from './status.js';

export interface SendResponse {
  id: number;
  status: SendStatus;
  sent: number;
  failed: number;
  skipped: number;
  estimate: number;
  message: string;
  /** A list send's ids that name no subscribed install (OneSignal's `errors`); absent when none. */
  errors?: UnknownIds;
}

export interface CreatedSend {
  httpStatus: 200 | 202;
  body: SendResponse;
}

export interface CreateSendDeps {
  pool: Pool;
  bus: Bus;
  logger: Logger;
}

export interface CreateSendOptions {
  source?: SendSource;
  /** Runs inside the recording transaction (e.g. the idempotency record), so both commit or neither. */
  withinTransaction?: (db: PoolClient, created: CreatedSend) => Promise<void>;
}

interface MessageTemplate {
  subject: string;
  msgIdPrefix: string;
  payload: Record<string, unknown>;
}

/** The send-created event the controller's mirror and metrics read. */
export interface SendCreatedEvent {
  sendId: number;
  appId: string;
  status: SendStatus;
  targetKind: SendRequest['target']['kind'];
  broadcast: boolean;
  scheduled: boolean;
  source: SendSource;
}

export async function createSend(deps: CreateSendDeps, app: AppRecord, req: SendRequest, opts: CreateSendOptions = {}): Promise<CreatedSend> {
  const source = opts.source ?? 'api';
  const [{ estimate, maxSeq }, unknown] = await Promise.all([measureAudience(deps.pool, app, req.target), unknownListIds(deps.pool, app.id, req.target)]);
  if (isBroadcast(req) && estimate > MAX_AUDIENCE) throw new ValidationError([audienceTooLargeMessage(estimate)]);
  const decision = decideStatus(req, app, estimate);

  const broadcast = isBroadcast(req);
  const event: Omit<SendCreatedEvent, 'sendId'> = {
    appId: app.id,
    status: decision.status,
    targetKind: req.target.kind,
    broadcast,
    scheduled: decision.status === 'scheduled',
    source,
  };
  // The bus messages of the send, as templates: the send id is filled in by the database.
  const templates: MessageTemplate[] = [{ subject: SUBJECTS.sendEvent('created'), msgIdPrefix: 'send-created-', payload: event }];
  // A list send delivered now is one chunk (at most 500 ids), recorded with the send.
  const listChunk = decision.plan && !broadcast ? (listBounds(req)[0]?.planned ?? 0) : 0;

  const record = async (db: Queryable) => {
    // One statement records the send and its outbox rows: atomic without BEGIN/COMMIT, and one
    // round trip instead of four (each round trip is a syscall pair, the api's main cost).
    const res = await db.query({
      name: 'herald-record-send', // prepared once per connection: the hottest statement
      text: `WITH s AS (
         INSERT INTO sends (app_id, source, target_kind, request, status, message, total_recipients, audience_max_seq,
                            throttle_per_min, send_after, finished_at, chunks_total)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, CASE WHEN $5 IN ('approved', 'draft') THEN now() END,
                 CASE WHEN $14::int > 0 THEN 1 END)
         RETURNING id
       ), k AS (
         INSERT INTO send_chunks (send_id, chunk, planned) SELECT id, 0, $14::int FROM s WHERE $14::int > 0
       ), o AS (
         INSERT INTO outbox (subject, msg_id, payload)
         SELECT t.subject, t.prefix || s.id, t.payload || jsonb_build_object('sendId', s.id)
           FROM s, unnest($11::text[], $12::text[], $13::jsonb[]) WITH ORDINALITY AS t(subject, prefix, payload, n)
          ORDER BY t.n
         RETURNING id
       )
       SELECT (SELECT id FROM s) AS send_id, coalesce((SELECT array_agg(id ORDER BY id) FROM o), '{}') AS outbox_ids`,
      values: [
        app.id,
        source,
        req.target.kind,
        JSON.stringify(req),
        decision.status,
        decision.message,
        estimate,
        maxSeq,
        req.throttleRatePerMinute ?? null,
        req.sendAfter ?? null,
        templates.map((t) => t.subject),
        templates.map((t) => t.msgIdPrefix),
        templates.map((t) => JSON.stringify(t.payload)),
        listChunk,
      ],
    });
    const id = res.rows[0].send_id as number;
    const outboxIds = res.rows[0].outbox_ids as number[];
    const created: CreatedSend = {
      httpStatus: decision.httpStatus,
      body: { id, status: decision.status, sent: 0, failed: 0, skipped: 0, estimate, message: decision.message, ...(unknown ? { errors: unknown } : {}) },
    };
    const outbox: EnqueuedMessage[] = templates.map((t, i) => ({
      id: outboxIds[i],
      subject: t.subject,
      msgId: `${t.msgIdPrefix}${id}`,
      payload: { ...t.payload, sendId: id },
    }));
    return { created, outbox };
  };

  const { created, outbox } = opts.withinTransaction
    ? await inTransaction(deps.pool, async (db) => {
        const result = await record(db);
        await opts.withinTransaction!(db, result.created);
        return result;
      })
    : await record(deps.pool);

  // Publish before answering, so the work is on the bus when the caller hears 202; if NATS is
  // down the outbox relay publishes later and the answer does not wait for it.
  await publishAndDelete(deps.pool, deps.bus, outbox).catch((error) =>
    deps.logger.warn({ err: error, sendId: created.body.id }, 'publish deferred to the outbox relay'),
  );
  if (decision.plan) wakeSenders(deps.bus);
  return created;
}
