// JSON bodies only, at most 1 MB (DECISIONS "Bodies"): 415 for another content type, 400 for
// malformed JSON, 413 above the limit. Runs after authentication, so an unauthenticated body is
// never parsed.
//
// The body is read as text and its nesting checked before JSON.parse: V8 builds each
// level of `[[[[…` slowly enough that a 1 MB body of brackets held the event loop for seconds.
// No JSON library bounds depth before allocating, so the scan below is written by hand: one pass,
// no allocation.
import type { Middleware } from 'koa';
import { bodyParser } from '@koa/bodyparser';
import { BadRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../../core/errors.js';
import { checkUntrustedJson } from '../../core/validation/untrusted-json.js';
import { BODY_NOT_OBJECT } from '../../core/validation/checker.js';

/** Deeper than any body of the contract (a send body nests 4 levels). */
export const MAX_JSON_DEPTH = 32;
export const TOO_DEEP = `The request body nests deeper than ${MAX_JSON_DEPTH} levels.`;

/** Whether `text` nests arrays and objects deeper than `max` (brackets inside strings ignored). */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

export function jsonBody(): Middleware {
  const read = bodyParser({
    enableTypes: ['text'],
    extendTypes: { text: ['application/json', '+json'] },
    textLimit: '1mb',
    onError(error) {
      const status = (error as { status?: number }).status;
      if (status === 413) throw new PayloadTooLargeError();
      throw new BadRequestError();
    },
  });
  return async function jsonBodyMiddleware(ctx, next) {
    if (!['POST', 'PUT', 'PATCH'].includes(ctx.method)) return next();
    if (!ctx.request.is('application/json', '+json')) throw new UnsupportedMediaTypeError();
    await read(ctx, async () => undefined);
    const text = typeof ctx.request.body === 'string' ? ctx.request.body : '';
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw new BadRequestError(TOO_DEEP);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new BadRequestError();
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new BadRequestError(BODY_NOT_OBJECT);
    }
    // Prototype keys and text PostgreSQL cannot store are a 422 before anything reads the body.
    ctx.request.body = checkUntrustedJson(body);
    await next();
  };
}

/** A body the call may leave out (the client sends exportSubscriptions without one when none is given): `{}` then. */
export function optionalJsonBody(): Middleware {
  const json = jsonBody();
  return async function optionalJsonBodyMiddleware(ctx, next) {
    if ((ctx.get('Content-Length') || '0') === '0' && !ctx.get('Transfer-Encoding')) {
      ctx.request.body = {};
      return next();
    }
    return json(ctx, next);
  };
}
