// The one place errors become answers (STYLE.md "Errors"): {"errors": [...]} for every error
// status (DECISIONS "Bodies"). Unexpected failures are a 500 that names the request id, logged
// once with that id; their text never reaches the caller.
import type { Middleware } from 'koa';
import {
  BadRequestError,
  HeraldError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
} from '../../core/errors.js';

/** Maps errors thrown by Koa and its body parser (http-errors) onto the Herald family. */
function fromHttpError(error: { status?: number; type?: string }): HeraldError | undefined {
  if (error.status === 413 || error.type === 'entity.too.large') return new PayloadTooLargeError();
  if (error.status === 415) return new UnsupportedMediaTypeError();
  if (error.status === 400) return new BadRequestError();
  return undefined;
}

export function errorBody(): Middleware {
  return async function errorBodyMiddleware(ctx, next) {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        ctx.status = 404;
        ctx.body = { errors: ['Not found.'] };
      }
    } catch (thrown) {
      const error = thrown instanceof HeraldError ? thrown : fromHttpError(thrown as { status?: number });
      if (error && error.expose) {
        ctx.status = error.status;
        for (const [name, value] of Object.entries(error.headers ?? {})) ctx.set(name, value);
        ctx.body = error.status === 429 ? { message: error.messages[0], errors: error.messages } : { errors: error.messages };
        return;
      }
      ctx.state.log?.error({ err: thrown, method: ctx.method, path: ctx.path }, 'request failed');
      ctx.status = 500;
      ctx.body = { errors: [`Something went wrong on our side. Request id: ${ctx.state.requestId}.`] };
    }
  };
}
