// Accepting a send: the one code path behind POST /api/v1/notifications and a `Send` applied with
// kubectl. Measures the audience, decides the status, records the send and its bus messages in
// one transaction (outbox), publishes after commit, and returns the answer.
import type { Pool, PoolClient } from '../store/db.js';
import { inTransaction } from '../store/db.js';
import type { Bus } from '../bus/jetstream.js';
import { SUBJECTS } from '../bus/subjects.js';
import { enqueue, publishAndDelete } from '../bus/outbox.js';
import type { Logger } from '../log.js';
import type { AppRecord } from '../apps/app-store.js';
import { measureAudience } from '../audience/measure.js';
import { ValidationError } from '../errors.js';
import type { SendRequest } from './request.js';
import { audienceTooLargeMessage, decideStatus, isBroadcast, MAX_AUDIENCE, type SendStatus } from './status.js';

export interface SendResponse {
  id: number;
  status: SendStatus;
  sent: number;
  failed: number;
  skipped: number;
  estimate: number;
  message: string;
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
  source?: 'api' | 'kubernetes';
  /** Runs inside the recording transaction (e.g. the idempotency record), so both commit or neither. */
  withinTransaction?: (db: PoolClient, created: CreatedSend) => Promise<void>;
}

/** The send-created event the controller's mirror and metrics read. */
export interface SendCreatedEvent {
  sendId: number;
  appId: string;
  status: SendStatus;
  targetKind: SendRequest['target']['kind'];
  broadcast: boolean;
  scheduled: boolean;
  source: 'api' | 'kubernetes';
}

export async function createSend(deps: CreateSendDeps, app: AppRecord, req: SendRequest, opts: CreateSendOptions = {}): Promise<CreatedSend> {
  const source = opts.source ?? 'api';
  const { estimate, maxSeq } = await measureAudience(deps.pool, app, req.target);
  if (isBroadcast(req) && estimate > MAX_AUDIENCE) throw new ValidationError([audienceTooLargeMessage(estimate)]);
  const decision = decideStatus(req, app, estimate);

  const { created, outbox } = await inTransaction(deps.pool, async (db) => {
    const res = await db.query(
      `INSERT INTO sends (app_id, source, target_kind, request, status, message, total_recipients, audience_max_seq,
                          throttle_per_min, send_after, finished_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, CASE WHEN $5 IN ('approved', 'draft') THEN now() END)
       RETURNING id`,
      [
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
      ],
    );
    const id = res.rows[0].id as number;
    const created: CreatedSend = {
      httpStatus: decision.httpStatus,
      body: { id, status: decision.status, sent: 0, failed: 0, skipped: 0, estimate, message: decision.message },
    };
    const event: SendCreatedEvent = {
      sendId: id,
      appId: app.id,
      status: decision.status,
      targetKind: req.target.kind,
      broadcast: isBroadcast(req),
      scheduled: decision.status === 'scheduled',
      source,
    };
    const messages = [{ subject: SUBJECTS.sendEvent('created'), msgId: `send-created-${id}`, payload: event }];
    if (decision.plan) messages.push({ subject: SUBJECTS.planJob, msgId: `plan-${id}`, payload: { sendId: id } as never });
    const outbox = await enqueue(db, messages);
    await opts.withinTransaction?.(db, created);
    return { created, outbox };
  });

  // Publish now; if NATS is down the outbox relay publishes later. The answer does not wait for it.
  await publishAndDelete(deps.pool, deps.bus, outbox).catch((error) =>
    deps.logger.warn({ err: error, sendId: created.body.id }, 'publish deferred to the outbox relay'),
  );
  return created;
}
