// OneSignal-client fields with an APNs counterpart (DECISIONS "Compatibility": extra fields).
// Their types and ranges are checked by the schema; this maps them onto ApnsOptions.
import type { ApnsOptions } from '../send/request.js';
import type { SendBody } from './send-schema.js';

/** apns-collapse-id may be at most 64 bytes (Apple, "Sending notification requests to APNs"). */
const MAX_COLLAPSE_ID_BYTES = 64;

/** `present`: fields the body named, so a badge count with a wrong type (already reported) is
 * not also reported as missing. */
export function readApnsOptions(
  body: SendBody,
  present: Set<string>,
  messages: string[],
): ApnsOptions {
  const apns: ApnsOptions = {};
  if (body.ttl !== undefined) apns.ttlSeconds = body.ttl;
  // OneSignal's 1–10 scale onto APNs' two values: 10 (immediately) or 5 (power-considerate).
  if (body.priority !== undefined) apns.priority = body.priority >= 7 ? 10 : 5;
  if (body.collapse_id !== undefined) {
    if (Buffer.byteLength(body.collapse_id, 'utf8') > MAX_COLLAPSE_ID_BYTES) {
      messages.push('collapse_id is longer than 64 bytes.');
    } else if (body.collapse_id !== '') {
      apns.collapseId = body.collapse_id;
    }
  }
  const type = body.ios_badge_type;
  if (type !== undefined) {
    apns.badgeType = type;
    const count = body.ios_badge_count;
    if (type !== 'None' && count === undefined) {
      if (!present.has('ios_badge_count')) {
        messages.push(`ios_badge_count is required with ios_badge_type ${type}.`);
      }
    } else if (type === 'SetTo' && count! < 0) {
      messages.push('ios_badge_count must be 0 or more with ios_badge_type SetTo.');
    } else if (type !== 'None') {
      apns.badgeCount = count;
    }
  }
  // ios_badge_count without ios_badge_type means nothing to OneSignal either: ignored.
  return apns;
}
