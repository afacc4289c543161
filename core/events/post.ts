// One POST of a batch to a destination: the connection goes only to an address checked at connect
// time (its name resolved here, a link-local, metadata or unlisted loopback answer refused:
// checked-lookup.ts; no DNS rebinding past the check), through the egress proxy unless NO_PROXY
// exempts the host (the dialer tunnels to the checked address, so the proxy resolves nothing:
// core/net/dialer.ts), a redirect is an answer like any failure (never followed), and the whole
// request has a deadline. The answer's body is read and dropped.
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { addressRefusal, checkedLookup } from './checked-lookup.js';
import { directDialer, type Dialer } from '../net/dialer.js';

export interface PostResult {
  /** The HTTP status; 0 when no answer came (refused, reset, timed out, a forbidden address). */
  status: number;
  /** Retry-After in ms (seconds or an HTTP date), when the answer gave one. */
  retryAfterMs?: number;
  error?: string;
}

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

/**
 * `httpHosts`: HERALD_EVENT_HTTP_HOSTS, the hosts whose loopback answers a connection may take;
 * `dialer`: the way out (direct when absent).
 */
export function postBatch(url: string, headers: Record<string, string>, body: string, opts: { timeoutMs: number; httpHosts: readonly string[]; dialer?: Dialer }): Promise<PostResult> {
  const { timeoutMs } = opts;
  const target = new URL(url);
  const options: RequestOptions = {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'herald-events' },
    createConnection: (opts.dialer ?? directDialer).requestConnection({ lookup: checkedLookup(opts.httpHosts), tls: target.protocol === 'https:' ? {} : undefined }),
    timeout: timeoutMs,
  };
  // An address written in the URL skips the lookup: it was checked when the App was applied, and
  // is checked again here by the same rule.
  const literal = target.hostname.replace(/^\[|\]$/g, '');
  const refused = isIP(literal) ? addressRefusal(literal, literal, opts.httpHosts) : undefined;
  if (refused) return Promise.resolve({ status: 0, error: refused });
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
