// Dashboard sessions: sign in with an app's REST key; the server keeps the session (only the
// SHA-256 of its token is stored), the browser holds the token in an httpOnly, SameSite=Strict
// cookie scoped to /dashboard (Secure when the request came over TLS). Every change (POST) must
// carry the session's CSRF token. The key is re-checked on every request, in the same statement
// that reads the session: revoked, its app disabled, or the caller's address outside the key's
// allow-list, and the session does nothing. A key holds at most MAX_SESSIONS_PER_KEY sessions
// (signing in again ends its oldest).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import type { Queryable } from '../../core/store/db.js';
import type { KeyScope } from '../../core/apps/keys.js';
import { ipAllowed, toBlockList } from '../shared/key-cache.js';
import { keyUse } from '../shared/key-use.js';

export const COOKIE = 'herald_session';
const TTL_HOURS = 12;
/** Sessions one key may hold: a person on a few browsers; a script signing in in a loop cannot grow the table. */
export const MAX_SESSIONS_PER_KEY = 10;

export interface DashboardSession {
  keyId: string;
  appId: string;
  appName: string;
  scope: KeyScope;
  csrf: string;
}

const hash = (token: string) => createHash('sha256').update(token, 'utf8').digest();
const token = () => randomBytes(32).toString('base64url');

export async function createSession(db: Queryable, keyId: string): Promise<string> {
  const t = token();
  await db.query(
    `INSERT INTO dashboard_sessions (hash, key_id, csrf, expires_at) VALUES ($1, $2, $3, now() + make_interval(hours => $4))`,
    [hash(t), keyId, token(), TTL_HOURS],
  );
  // Expired sessions of anyone, and this key's sessions past the cap (oldest first), go at each
  // sign-in: no separate sweeper needed.
  await db.query(`DELETE FROM dashboard_sessions WHERE expires_at < now()`);
  await db.query(
    `DELETE FROM dashboard_sessions WHERE key_id = $1 AND hash NOT IN
       (SELECT hash FROM dashboard_sessions WHERE key_id = $1 ORDER BY expires_at DESC LIMIT $2)`,
    [keyId, MAX_SESSIONS_PER_KEY],
  );
  return t;
}

/** The session of token `t` used from address `ip`, if its key may still be used from there. */
export async function readSession(db: Queryable, t: string | undefined, ip: string): Promise<DashboardSession | undefined> {
  if (!t || t.length > 100) return undefined;
  const res = await db.query(
    `SELECT s.key_id, s.csrf, k.app_id, k.scope, k.allow_ips::text[] AS allow_ips, a.name
       FROM dashboard_sessions s JOIN api_keys k ON k.id = s.key_id JOIN apps a ON a.id = k.app_id
      WHERE s.hash = $1 AND s.expires_at > now() AND k.revoked_at IS NULL AND NOT a.disabled`,
    [hash(t)],
  );
  const r = res.rows[0];
  if (!r || !ipAllowed({ allowList: toBlockList(r.allow_ips) }, ip)) return undefined;
  return { keyId: r.key_id, appId: r.app_id, appName: r.name, scope: r.scope, csrf: r.csrf };
}

export async function deleteSession(db: Queryable, t: string | undefined): Promise<void> {
  if (t) await db.query(`DELETE FROM dashboard_sessions WHERE hash = $1`, [hash(t)]);
}

/** Secure cookies when the browser reached us over TLS, directly or through a trusted proxy. */
export function overTls(ctx: Context, trustProxyHops: number): boolean {
  if (ctx.req.socket && (ctx.req.socket as { encrypted?: boolean }).encrypted) return true;
  return trustProxyHops > 0 && ctx.get('X-Forwarded-Proto').split(',')[0].trim() === 'https';
}

export function setSessionCookie(ctx: Context, value: string | null, secure: boolean): void {
  // The api runs with Koa's proxy mode off (client-ip.ts counts hops itself), so Koa does not know
  // a TLS-terminating proxy was in front; tell the cookie jar what overTls found.
  if (secure) (ctx.cookies as unknown as { secure: boolean }).secure = true;
  ctx.cookies.set(COOKIE, value, {
    httpOnly: true,
    sameSite: 'strict',
    secure,
    path: '/dashboard',
    maxAge: value ? TTL_HOURS * 3600_000 : undefined,
    overwrite: true,
  });
}

/** Loads the session into ctx.state.session; pages without one go to the sign-in page. */
export function requireSession(db: Queryable): Middleware {
  return async function dashboardSession(ctx, next) {
    const session = await readSession(db, ctx.cookies.get(COOKIE), ctx.state.ip);
    if (!session) {
      if (ctx.method === 'GET' && !ctx.path.endsWith('.json')) return ctx.redirect('/dashboard/sign-in');
      ctx.status = 401;
      ctx.body = { errors: ['Sign in again.'] };
      return;
    }
    ctx.state.session = session;
    keyUse(db).note(session.keyId); // a page is a use of its key (Settings' "last used")
    await next();
  };
}

/** The CSRF check of every change: the form's _csrf must equal the session's token. */
export function csrfValid(session: DashboardSession, given: unknown): boolean {
  if (typeof given !== 'string' || given.length !== session.csrf.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(session.csrf));
}
