// The caller's address (DECISIONS "client IP"): the socket address, or the address the trusted
// proxies saw, counting `hops` proxies back from the right of X-Forwarded-For.
import type { Context } from 'koa';

export function clientIp(ctx: Context, hops: number): string {
  const socketIp = normalise(ctx.req.socket.remoteAddress ?? '');
  if (hops <= 0) return socketIp;
  const forwarded = String(ctx.get('X-Forwarded-For') || '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const candidate = forwarded[forwarded.length - hops];
  return candidate ? normalise(candidate) : socketIp;
}

function normalise(ip: string): string {
  return ip.startsWith('::ffff:') ? ip.slice(7) : ip;
}
