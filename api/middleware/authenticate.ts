// REST API key authentication (contract "Authentication", DECISIONS "Identity and auth"):
// `Key <key>`, also `Basic` and `Bearer`, scheme case-insensitive; 401 for a missing, malformed,
// unknown or revoked key, 403 for a key used from outside its allow-list. A refused call draws
// only the `anonymous` bucket (see limitAnonymous).
import type { Middleware } from 'koa';
import { AuthError } from '../../core/errors.js';
import { mayUse } from '../../core/apps/keys.js';
import { ipAllowed, type KeyCache } from '../shared/key-cache.js';

const SCHEME = /^(key|basic|bearer)\s+(\S+)\s*$/i;

/** The key from an Authorization header; `Basic` carries it as base64 "key" or "key:" / ":key". */
export function keyFromHeader(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = SCHEME.exec(header);
  if (!match) return undefined;
  const [, scheme, value] = match;
  if (scheme.toLowerCase() !== 'basic' || value.startsWith('hk_')) return value;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const parts = decoded.split(':').filter(Boolean);
  return parts.length === 1 ? parts[0] : undefined;
}

export function authenticate(keys: KeyCache): Middleware {
  return async function authenticateMiddleware(ctx, next) {
    const header = ctx.get('Authorization');
    if (!header) throw new AuthError('missing');
    const key = keyFromHeader(header);
    if (!key) throw new AuthError('malformed');
    const identity = await keys.lookup(key);
    if (!identity) throw new AuthError('unknown');
    if (identity.revoked) throw new AuthError('revoked');
    if (!ipAllowed(identity, ctx.state.ip)) throw new AuthError('ip_not_allowed');
    ctx.state.auth = { keyId: identity.keyId, appId: identity.appId, scope: identity.scope };
    await next();
  };
}

/** After authenticate: a call that changes something needs a key of scope `send` or above (403 for `read`). */
export function requireSendScope(): Middleware {
  return async function requireSendScopeMiddleware(ctx, next) {
    if (!ctx.state.auth || !mayUse(ctx.state.auth.scope, 'send')) throw new AuthError('read_only');
    await next();
  };
}
