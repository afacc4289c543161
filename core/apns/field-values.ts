// What a message's own header values must be for HTTP/2 to carry them, checked before framing by
// both adapters. Nothing here is a token rule (that is core/formats/device-token.ts, applied
// where tokens come in); a message that breaks one of these is a bug upstream, so it is answered
// `Unframeable` with `local: true` — failed, counted and logged, never sent, never held, and never
// taken for Apple's verdict on the device (sender/outcomes.ts).
import type { Logger } from 'pino';
import type { ApnsMessage, ApnsResult } from './types.js';
import { isHeaderValue } from '../formats/header-value.js';

/**
 * The longest value of a message field we frame. The whole request block must fit one HEADERS
 * frame (we write no CONTINUATION; every peer takes 16,384 bytes, RFC 9113 §4.2): three such
 * values and the batch's fields stay under it.
 */
export const MAX_FIELD_VALUE_BYTES = 4096;

/** :path is a request-target: visible ASCII, no space (RFC 9113 §8.3.1, nghttp2_check_path). */
const PATH_SAFE = /^[\x21-\x7e]*$/;

/** Why `value` of `field` cannot be framed, or undefined; module-level so a message allocates nothing. */
function fieldProblem(field: string, value: string | undefined, safe: (value: string) => boolean): string | undefined {
  if (value === undefined) return undefined;
  if (value.length > MAX_FIELD_VALUE_BYTES) return `${field} is ${value.length} bytes, over ${MAX_FIELD_VALUE_BYTES}`;
  if (!safe(value)) return `${field} holds a byte HTTP/2 does not allow there`;
  return undefined;
}

function isPathSafe(value: string): boolean {
  return PATH_SAFE.test(value);
}

/** Why `m` cannot be framed, naming the field, or undefined when it can (checked for every message). */
export function frameProblem(m: ApnsMessage): string | undefined {
  return (
    fieldProblem('the token (:path)', m.token, isPathSafe) ??
    fieldProblem('apns-id', m.apnsId, isHeaderValue) ??
    fieldProblem('apns-collapse-id', m.collapseId, isHeaderValue) ??
    fieldProblem('apns-channel-id', m.channelId, isHeaderValue)
  );
}

/** The reason of a message refused here, before sending. */
export const UNFRAMEABLE = 'Unframeable';

/** The answer for a message that cannot be framed (logged with its reason), or undefined when it can. */
export function refuseUnframeable(m: ApnsMessage, logger: Logger): ApnsResult | undefined {
  const problem = frameProblem(m);
  if (problem === undefined) return undefined;
  // Not the token's shape: only its length, so the log is no handle to the device.
  logger.error({ reason: UNFRAMEABLE, problem, tokenLength: m.token.length }, 'apns message cannot be framed: failed without sending (a bug: its values should never have been accepted); the install and its tokens are kept');
  return { token: m.token, status: 0, reason: UNFRAMEABLE, local: true };
}
