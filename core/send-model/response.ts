// The answer to an accepted send (REST's 200/202 body and its status), kept by the idempotency
// record and replayed as it was: a shape of the send's model, so the idempotency guard and the
// accept path read it without importing each other.
import type { SendStatus } from './states.js';

/** A list send's ids that name no subscribed install (OneSignal's `errors`). */
export interface UnknownIds {
  /** By label: the ids of an include_aliases (or include_external_ids: external_id) list no subscribed install has. */
  invalid_aliases?: Record<string, string[]>;
  invalid_player_ids?: string[];
}

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
