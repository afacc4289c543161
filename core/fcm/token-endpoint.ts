// One POST of the assertion to the service account's token_uri (HTTP/1.1, through the dialer like
// every way out; HERALD_FCM_CA_FILE trusted beside the public roots). Its answer, read in one place:
// an access token, a refusal of the App's credentials (a 4xx: the JWT, key or account refused), or
// no answer (no connection, a 5xx, a timeout, a body that is not a token): an outage.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { directDialer, type Dialer } from '../net/dialer.js';
import { trustedContext } from './trust.js';

export type TokenAnswer =
  | { kind: 'token'; accessToken: string; expiresInS: number }
  | { kind: 'refused'; status: number; error: string }
  | { kind: 'unavailable'; detail: string };

export interface TokenEndpointOptions {
  ca?: string;
  dialer?: Dialer;
  timeoutMs?: number;
}

const MAX_BODY = 64 * 1024;

export function postAssertion(tokenUri: string, form: string, opts: TokenEndpointOptions = {}): Promise<TokenAnswer> {
  const target = new URL(tokenUri);
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const https = target.protocol === 'https:';
  return new Promise((resolve) => {
    let settled = false;
    const done = (a: TokenAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(a);
    };
    const req = (https ? httpsRequest : httpRequest)(
      target,
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(form)), 'user-agent': 'herald-fcm' },
        createConnection: (opts.dialer ?? directDialer).requestConnection({ tls: https ? { secureContext: trustedContext(opts.ca) } : undefined }),
      },
      (res) => {
        const parts: Buffer[] = [];
        let size = 0;
        res.on('data', (b: Buffer) => {
          size += b.length;
          if (size <= MAX_BODY) parts.push(b);
        });
        res.on('end', () => done(answerOf(res.statusCode ?? 0, Buffer.concat(parts).toString())));
        res.on('error', (e) => done({ kind: 'unavailable', detail: e.message }));
      },
    );
    const deadline = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    req.on('error', (e) => done({ kind: 'unavailable', detail: e.message }));
    req.end(form);
  });
}

/** Google's answers: 200 {access_token, expires_in, token_type}; 400/401 {error, error_description}. */
export function answerOf(status: number, body: string): TokenAnswer {
  let parsed: Record<string, unknown> = {};
  try {
    const value: unknown = JSON.parse(body);
    if (value && typeof value === 'object') parsed = value as Record<string, unknown>;
  } catch {
    // Not JSON: judged by the status alone.
  }
  if (status === 200) {
    const { access_token: accessToken, expires_in: expiresIn } = parsed;
    if (typeof accessToken === 'string' && accessToken && typeof expiresIn === 'number' && expiresIn > 0) return { kind: 'token', accessToken, expiresInS: expiresIn };
    return { kind: 'unavailable', detail: 'the token endpoint answered 200 without an access_token and expires_in' };
  }
  if (status >= 400 && status < 500 && status !== 408 && status !== 429) {
    const error = typeof parsed.error === 'string' ? parsed.error : `HTTP${status}`;
    return { kind: 'refused', status, error };
  }
  return { kind: 'unavailable', detail: `the token endpoint answered ${status}` };
}
