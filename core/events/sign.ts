// Standard Webhooks signatures (https://www.standardwebhooks.com): `webhook-id`,
// `webhook-timestamp` (Unix seconds of this attempt) and `webhook-signature: v1,<base64 of
// HMAC-SHA256(id.timestamp.body)>` keyed by the secret's bytes (the base64 after `whsec_`), so
// receivers verify with the `standardwebhooks` or `svix` libraries unchanged.
import { createHmac } from 'node:crypto';

export function signatureHeaders(secret: string, id: string, timestampSeconds: number, body: string): Record<string, string> {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestampSeconds), 'webhook-signature': `v1,${signature}` };
}
