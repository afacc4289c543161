// A call refused with 401/403 draws the `anonymous` bucket of its IP and nothing else
// (contract "Authentication" 4). Wraps the authenticated routes; rethrows the refusal, or a 429
// when the anonymous bucket itself is empty.
import type { Middleware } from 'koa';
import { AuthError, HeraldError } from '../../core/errors.js';
import type { RateLimiter } from '../shared/deps.js';

export function limitAnonymous(limiter: RateLimiter | undefined): Middleware {
  return async function limitAnonymousMiddleware(ctx, next) {
    try {
      await next();
    } catch (error) {
      if (!(error instanceof AuthError) || !limiter) throw error;
      let headers: Record<string, string>;
      try {
        headers = await limiter.drawAnonymous(ctx.state.ip);
      } catch (limited) {
        if (limited instanceof HeraldError) throw limited;
        throw error;
      }
      for (const [name, value] of Object.entries(headers)) ctx.set(name, value);
      throw error;
    }
  };
}
