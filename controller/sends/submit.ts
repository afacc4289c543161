// A Send applied with kubectl is submitted through the REST call's own path: the App's state
// (402 for an overdue invoice), validateSendRequest (422 messages word for word), the idempotency
// guard, createSend. What the REST call would answer becomes the Accepted condition.
//
// Exactly once: the submission runs under an idempotency key — the spec's idempotency_key (REST
// meaning, shared with REST calls of the app) or `kubernetes-<uid of the Send>` — so a controller
// that dies between recording the send and writing status.id finds the same send again.
import type { Pool } from '../../core/store/db.js';
import type { Bus } from '../../core/bus/jetstream.js';
import type { Logger } from '../../core/log.js';
import { getAppByName } from '../../core/apps/app-store.js';
import type { CreatedSend } from '../../core/send-model/response.js';
import { acceptSend } from '../../core/send/accept.js';
import { ConflictError, PaymentRequiredError, ValidationError } from '../../core/errors.js';
import type { PgIdempotencyGuard } from '../../core/idempotency/pg-guard.js';
import type { ConditionInput } from '../kube/conditions.js';
import { restBody } from './spec.js';
import type { SendObject } from './types.js';

export interface SubmitDeps {
  pool: Pool;
  bus: Bus;
  logger: Logger;
  idempotency: PgIdempotencyGuard;
  now?: () => Date;
}

export type SubmitOutcome =
  | { kind: 'accepted'; created: CreatedSend; replayed: boolean; condition: ConditionInput }
  /** Refused for good: the REST call would have answered this error. */
  | { kind: 'refused'; condition: ConditionInput }
  /** Not yet possible (the App is missing or not reconciled yet): try again later. */
  | { kind: 'waiting'; condition: ConditionInput; retryMs: number };

export async function submitSend(deps: SubmitDeps, send: SendObject): Promise<SubmitOutcome> {
  const namespace = send.metadata.namespace!;
  const appName = send.spec.appRef.name;
  const app = await getAppByName(deps.pool, `${namespace}/${appName}`);
  if (!app) {
    return {
      kind: 'waiting',
      retryMs: 5000,
      condition: { type: 'Accepted', status: 'Unknown', reason: 'AppNotFound', message: `App ${appName} was not found in namespace ${namespace} (or is not reconciled yet); the send waits for it.` },
    };
  }
  const refused = (reason: string, messages: string[]): SubmitOutcome => ({
    kind: 'refused',
    condition: { type: 'Accepted', status: 'False', reason, message: messages.join(' ') },
  });
  if (app.disabled) return refused('AppDisabled', [`App ${appName} is being deleted or was deleted; nothing was sent.`]);
  const body = restBody(send.spec, app.id);
  try {
    const { created, replayed } = await acceptSend(deps, {
      app,
      body,
      source: 'kubernetes',
      fallbackKey: `kubernetes-${send.metadata.uid}`,
      now: deps.now?.() ?? new Date(),
    });
    return {
      kind: 'accepted',
      created,
      replayed,
      condition: { type: 'Accepted', status: 'True', reason: replayed ? 'IdempotentReplay' : 'Submitted', message: `Send ${created.body.id}: ${created.body.message}` },
    };
  } catch (error) {
    if (error instanceof ConflictError) {
      return { kind: 'waiting', retryMs: 1000, condition: { type: 'Accepted', status: 'Unknown', reason: 'InProgress', message: error.message } };
    }
    if (error instanceof ValidationError) return refused('Invalid', error.messages);
    if (error instanceof PaymentRequiredError) return refused('PaymentRequired', [error.message, 'Nothing was recorded or sent.']);
    throw error;
  }
}
