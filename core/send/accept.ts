// The one accept path of a send: POST /api/v1/notifications, a `Send` applied with kubectl and the
// dashboard's compose page all call acceptSend. The app's state (402 for an overdue invoice),
// validation (the contract's 422 messages), the idempotency guard and the record (createSend, whose status comes from the
// transitions table) are not optional steps of it: the guard is a required dependency, and a
// caller without a key of its own gives its fallback (the Send's uid) or none (a REST call
// without Idempotency-Key is not deduplicated, as the contract says).
import { customSegmentNames } from '../audience/segments.js';
import type { PoolClient } from '../store/db.js';
import type { AppRecord } from '../apps/app-store.js';
import { AuthError, PaymentRequiredError, type FieldIssue } from '../errors.js';
import { haltReason } from '../apps/sendable.js';
import { validateSendRequest, type SendValidationInput } from '../validation/validate-send.js';
import type { Platform, SendRequest } from '../send-model/request.js';
import { createSend, type CreateSendDeps } from './create-send.js';
import { withTemplate } from '../templates/apply-template.js';
import { readIdempotencyKey } from '../validation/idempotency-key.js';
import type { CreatedSend } from '../send-model/response.js';
import type { SendSource } from '../formats/send-source.js';

/** Idempotent retries (contract "Idempotency"): core/idempotency/pg-guard.ts. */
export interface SendIdempotency {
  /**
   * Runs `create` once per (app, key) in 24 hours. `create` receives a hook that records the key in
   * the same transaction as the send. A repeat with the same fingerprint returns the first answer
   * (replayed: true); a different fingerprint throws ValidationError; a repeat while the first is
   * running waits up to 5 s, then throws ConflictError.
   */
  run(
    appId: string,
    key: string,
    fingerprint: unknown,
    create: (withinTransaction: (db: PoolClient, created: CreatedSend) => Promise<void>) => Promise<CreatedSend>,
  ): Promise<{ created: CreatedSend; replayed: boolean }>;
  /** The first answer of a finished key with this fingerprint (same app, within 24 hours), else undefined. */
  recorded(appId: string, key: string, fingerprint: unknown): Promise<CreatedSend | undefined>;
}

export interface AcceptDeps extends CreateSendDeps {
  idempotency: SendIdempotency;
}

export interface AcceptInput {
  app: AppRecord;
  /** The REST body (a Send's spec is mapped to it first). */
  body: Record<string, unknown>;
  source: SendSource;
  idempotencyHeader?: string;
  /** The key used when the request names none (a Send object: its uid). */
  fallbackKey?: string;
  now: Date;
  /** Reads the body into a request: a send's rules by default; a Live Activity call passes its own. */
  validate?: (input: SendValidationInput) => SendRequest;
  /**
   * Work a call does once its request is read, the buckets drawn and the app found sendable, and
   * before the send row (a Live Activity start's broadcast channel: a refused start makes none).
   */
  prepare?: (request: SendRequest, app: AppRecord) => Promise<void>;
  /** Once the new send is sure to be accepted, as it is recorded, and once it is committed (never for a replayed answer): core/send/create-send.ts. */
  onAccepted?: () => void;
  onRecorded?: (sendId: number) => void;
  /** What "the same request" means for idempotency: the body as given (a template's fields not filled in) by default; a call whose path names more (a Live Activity) passes both. */
  fingerprint?: unknown;
}

/** What a send's rules read of its app: the accept path's and the estimate's (estimate.ts). */
export function rulesApp(app: AppRecord): SendValidationInput['app'] {
  // The platforms it can reach now; an App with no credentials yet (a draft) is held to both.
  const reaches: Platform[] = [...(app.hasApnsCredentials ? ['ios' as const] : []), ...(app.hasFcmCredentials ? ['android' as const] : [])];
  return {
    id: app.id,
    bundleId: app.bundleId,
    segmentNames: customSegmentNames(app),
    ...(app.credentialsKind ? { credentialsKind: app.credentialsKind } : {}),
    ...(reaches.length ? { reaches } : {}),
  };
}

export async function acceptSend(deps: AcceptDeps, input: AcceptInput): Promise<{ created: CreatedSend; replayed: boolean }> {
  const { app, body } = input;
  // The one "may this app send now" rule: a deleted or disabled app's keys no longer work.
  const halted = haltReason(app);
  if (halted === 'paused') throw new PaymentRequiredError();
  if (halted === 'disabled') throw new AuthError('revoked');
  const fingerprint = input.fingerprint ?? body;
  // A send's template fills its body first (a Live Activity call, with rules of its own, has none).
  // A repeat of a recorded send replays its first answer before the template is read: it may have
  // been deleted since, and a 422 would tell a retrying client the send failed.
  if (!input.validate && body.template_id !== undefined) {
    const first = await recordedAnswer(deps.idempotency, app.id, input, fingerprint);
    if (first) return { created: first, replayed: true };
  }
  const filled = input.validate ? body : await withTemplate(deps.pool, app.id, body);
  const validate = input.validate ?? validateSendRequest;
  const request = validate({ body: filled, idempotencyHeader: input.idempotencyHeader, app: rulesApp(app), now: input.now });
  await input.prepare?.(request, app);
  const create = (withinTransaction?: (db: PoolClient, created: CreatedSend) => Promise<void>) =>
    createSend(deps, app, request, { source: input.source, withinTransaction, onAccepted: input.onAccepted, onRecorded: input.onRecorded });
  const key = request.idempotencyKey ?? input.fallbackKey;
  if (!key) return { created: await create(), replayed: false };
  return deps.idempotency.run(app.id, key, fingerprint, create);
}

/** The recorded first answer of this body's key, read as the send's rules read it; none when the key is malformed (the rules' 422 follows). */
async function recordedAnswer(guard: SendIdempotency, appId: string, input: AcceptInput, fingerprint: unknown): Promise<CreatedSend | undefined> {
  const issues: FieldIssue[] = [];
  const named = readIdempotencyKey(input.body.idempotency_key, input.idempotencyHeader, issues, input.body.external_id);
  const key = issues.length ? undefined : named ?? input.fallbackKey;
  return key ? guard.recorded(appId, key, fingerprint) : undefined;
}
