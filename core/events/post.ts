// One POST of a batch to a destination: the connection goes only to an address checked at connect
// time (its name resolved here, a link-local or metadata answer refused: no DNS rebinding past the
// check), a redirect is an answer like any failure (never followed), and the whole request has a
// deadline. The answer's body is read and dropped.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isForbiddenAddress } from './destination-url.js';

export interface PostResult {
  /** The HTTP status; 0 when no answer came (refused, reset, timed out, a forbidden address). */
  status: number;
  /** Retry-After in ms (seconds or an HTTP date), when the answer gave one. */
  retryAfterMs?: number;
  error?: string;
}

/** A lookup that answers only addresses a destination may reach. */
export const checkedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err, '', 4);
    const allowed = addresses.filter((a) => !isForbiddenAddress(a.address));
    if (!allowed.length) return callback(Object.assign(new Error(`${hostname} resolves to a link-local or metadata address`), { code: 'EFORBIDDEN' }), '', 4);
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed);
    callback(null, allowed[0].address, allowed[0].family);
  });
};

/**
 * Retry-After (RFC 9110 10.2.3) in ms: delta-seconds, or an HTTP-date (it begins with the day's
 * name: Date.parse alone would read "2099" or "-5" as dates). Anything else is no Retry-After. The
 * caller bounds it (the dispatcher: at most an hour).
 */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  if (!/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*[, ]/.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export function postBatch(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<PostResult> {
  const target = new URL(url);
  const options: RequestOptions = {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'herald-events' },
    lookup: checkedLookup,
    timeout: timeoutMs,
  };
  // An address written in the URL skips the lookup: it was checked when the App was applied, and
  // is checked again here.
  if (isForbiddenAddress(target.hostname.replace(/^\[|\]$/g, ''))) return Promise.resolve({ status: 0, error: 'a link-local or metadata address' });
  return new Promise((resolve) => {
    let settled = false;
    const done = (r: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(r);
    };
    const req = (target.protocol === 'https:' ? httpsRequest : httpRequest)(target, options, (res) => {
      res.resume(); // drain and drop
      res.on('end', () => {
        const retryAfter = res.headers['retry-after'];
        done({ status: res.statusCode ?? 0, retryAfterMs: parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter) });
      });
      res.on('error', (e) => done({ status: 0, error: e.message }));
    });
    // The socket timeout covers idleness; this covers the whole exchange (a receiver trickling bytes).
    const deadline = setTimeout(() => {
      req.destroy(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (e) => done({ status: 0, error: e.message }));
    req.end(body);
  });
}
