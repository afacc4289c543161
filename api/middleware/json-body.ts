// JSON bodies only, at most 1 MB (DECISIONS "Bodies"): 415 for another content type, 400 for
// malformed JSON, 413 above the limit. Runs after authentication, so an unauthenticated body is
// never parsed.
import type { Middleware } from 'koa';
import { bodyParser } from '@koa/bodyparser';
import { BadRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../../core/errors.js';

export function jsonBody(): Middleware {
  const parse = bodyParser({
    enableTypes: ['json'],
    jsonLimit: '1mb',
    jsonStrict: true,
    onError(error) {
      const status = (error as { status?: number }).status;
      if (status === 413) throw new PayloadTooLargeError();
      throw new BadRequestError();
    },
  });
  return async function jsonBodyMiddleware(ctx, next) {
    if (!['POST', 'PUT', 'PATCH'].includes(ctx.method)) return next();
    if (!ctx.request.is('application/json', '+json')) throw new UnsupportedMediaTypeError();
    await parse(ctx, async () => undefined);
    const body = ctx.request.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new BadRequestError('The request body must be a JSON object.');
    }
    await next();
  };
}
