// estimateNotificationRecipients (POST /api/v1/notifications/count-unsaved): the audience size of a
// send body, read by the send's own audience rules (validateSendAudience) and counted by the send's
// own count (measureAudience, which createSend calls), so the estimate is the number a send made
// now would record as its `estimate`. It records nothing: no send, no outbox row, no idempotency key.
import type { Queryable } from '../store/db.js';
import type { AppRecord } from '../apps/app-store.js';
import { measureAudience } from '../audience/measure.js';
import { validateSendAudience } from '../validation/validate-send.js';
import { rulesApp } from './accept.js';

/** The answer the official client reads (EstimateNotificationRecipientsSuccessResponse). */
export interface SendEstimate {
  count: number;
}

export async function estimateSend(db: Queryable, app: AppRecord, body: unknown): Promise<SendEstimate> {
  const target = validateSendAudience({ body, app: rulesApp(app) });
  const { estimate } = await measureAudience(db, app, target);
  return { count: estimate };
}
