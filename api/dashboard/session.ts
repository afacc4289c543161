// Dashboard sessions (issue 13): sign in with an app's REST key; the server keeps the session
// (only the SHA-256 of its token is stored), the browser holds the token in an httpOnly,
// SameSite=Strict cookie scoped to /dashboard (Secure when the request came over TLS). Every
// change (POST) must carry the session's CSRF token; the key is re-checked on each request, so
// revoking it (or disabling the app) ends its sessions within the key cache's 2 s.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import type { Queryable } from '../../core/store/db.js';
import type { KeyScope } from '../../core/apps/keys.js';

export const COOKIE = 'herald_session';
const TTL_HOURS = 12;

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
  // Expired sessions of anyone go at each sign-in: no separate sweeper needed.
  await db.query(`DELETE FROM dashboard_sessions WHERE expires_at < now()`);
  return t;
}

export async function readSession(db: Queryable, t: string | undefined): Promise<DashboardSession | undefined> {
  if (!t || t.length > 100) return undefined;
  const res = await db.query(
    `SELECT s.key_id, s.csrf, k.app_id, k.scope, a.name
       FROM dashboard_sessions s JOIN api_keys k ON k.id = s.key_id JOIN apps a ON a.id = k.app_id
      WHERE s.hash = $1 AND s.expires_at > now() AND k.revoked_at IS NULL AND NOT a.disabled`,
    [hash(t)],
  );
  const r = res.rows[0];
  return r ? { keyId: r.key_id, appId: r.app_id, appName: r.name, scope: r.scope, csrf: r.csrf } : undefined;
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
    const session = await readSession(db, ctx.cookies.get(COOKIE));
    if (!session) {
      if (ctx.method === 'GET' && !ctx.path.endsWith('.json')) return ctx.redirect('/dashboard/sign-in');
      ctx.status = 401;
      ctx.body = { errors: ['Sign in again.'] };
      return;
    }
    ctx.state.session = session;
    await next();
  };
}

/** The CSRF check of every change: the form's _csrf must equal the session's token. */
export function csrfValid(session: DashboardSession, given: unknown): boolean {
  if (typeof given !== 'string' || given.length !== session.csrf.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(session.csrf));
}
