// The one place errors become answers (STYLE.md "Errors"): {"errors": [...]} for every error
// status (DECISIONS "Bodies"). Unexpected failures are a 500 that names the request id, logged
// once with that id; their text never reaches the caller. A dependency outage is a 503 with
// Retry-After instead: the caller did nothing wrong and should retry.
import type { Middleware } from 'koa';
import {
  BadRequestError,
  HeraldError,
  PayloadTooLargeError,
  ServiceUnavailableError,
  UnsupportedMediaTypeError,
} from '../../core/errors.js';
import { isUnavailable } from '../../core/faults/unavailable.js';
import type { OutageLog } from '../../core/faults/outage-log.js';

/** Maps errors thrown by Koa and its body parser (http-errors) onto the Herald family. */
function fromHttpError(error: { status?: number; type?: string }): HeraldError | undefined {
  if (error.status === 413 || error.type === 'entity.too.large') return new PayloadTooLargeError();
  if (error.status === 415) return new UnsupportedMediaTypeError();
  if (error.status === 400) return new BadRequestError();
  return undefined;
}

/** Seconds a caller is told to wait after a 503: about one PostgreSQL restart or failover. */
const RETRY_AFTER_SECONDS = 5;

/** `outage`: logs the first 503 of an outage and the first success after it (once per outage). */
export function errorBody(outage?: OutageLog): Middleware {
  return async function errorBodyMiddleware(ctx, next) {
    try {
      await next();
      if (ctx.status < 500) outage?.up();
      if (ctx.status === 404 && ctx.body === undefined) {
        ctx.status = 404;
        ctx.body = { errors: ['Not found.'] };
      }
    } catch (thrown) {
      const error =
        thrown instanceof HeraldError
          ? thrown
          : isUnavailable(thrown)
            ? (outage?.down(thrown), new ServiceUnavailableError(RETRY_AFTER_SECONDS, { cause: thrown }))
            : fromHttpError(thrown as { status?: number });
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
