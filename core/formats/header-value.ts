// What an HTTP/2 header field value carries as is (RFC 9113 §8.2.1): visible ASCII with inner
// spaces, no control byte, and no space at either end (a peer resets the stream otherwise). One
// rule for the api's check of a value a caller gives for a header (`collapse_id` →
// apns-collapse-id, core/validation/apns-options.ts) and the transport's last check before it
// frames one (core/apns/field-values.ts), so a value the api accepts is one the transport sends.

/** The empty value, or visible ASCII with spaces inside only. Linear: anchored, one backtrack. */
const HEADER_VALUE = /^(?:[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?)?$/;

/** Whether `value` may be an HTTP/2 header field value as it is. */
export function isHeaderValue(value: string): boolean {
  return HEADER_VALUE.test(value);
}
