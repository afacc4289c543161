// What "the same body" means for an idempotent repeat (contract "Idempotency" 5): field order
// inside objects is ignored, item order inside lists matters. The body's own `idempotency_key`
// is left out: it equals the key (validation checked that), so a first call carrying the key in
// the header and a retry carrying it in the body are the same request.
import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every depth; arrays keep their order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function requestFingerprint(body: unknown): Buffer {
  let subject = body;
  if (body !== null && typeof body === 'object' && !Array.isArray(body) && 'idempotency_key' in body) {
    const { idempotency_key: _key, ...rest } = body as Record<string, unknown>;
    subject = rest;
  }
  return createHash('sha256').update(canonicalJson(subject)).digest();
}
