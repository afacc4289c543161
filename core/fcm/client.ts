// The lean FCM HTTP v1 client (issue 39 point 2): one device per request, POSTed to
// {url}/v1/projects/{project_id}/messages:send over a pool of HTTP/2 connections (pool.ts), with
// the App's one access token (access-token.ts). A 401 that is not THIRD_PARTY_AUTH_ERROR means the
// token was refused: it is renewed once and the message sent again; a second 401 is the App's
// credentials refused (outcomes.ts). Node's http2 and crypto only: docs/decisions.md "Issue 39".
import { constants } from 'node:http2';
import type { FleetToken } from '../gateway/fleet-token.js';
import { isProgrammingError } from '../faults/unavailable.js';
import { FcmCredentialsRefusedError } from './access-token.js';
import { TOKEN_REFUSED } from './outcomes.js';
import { Http2Pool } from './pool.js';
import { resultOf } from './result.js';
import { FCM_PRODUCTION_URL, type FcmClient, type FcmClientOptions, type FcmMessage, type FcmResult, type FcmTarget } from './types.js';

/** The origin (scheme://host:port) to connect to; `url` (HERALD_FCM_URL) wins when set. */
export function fcmOrigin(url: string | undefined): string {
  const u = new URL(url ?? FCM_PRODUCTION_URL);
  if (u.protocol !== 'https:') throw new TypeError(`the FCM url must be https, got ${u.protocol}`);
  return u.origin;
}

export function createFcmClient(target: FcmTarget, opts: FcmClientOptions = {}): FcmClient {
  const origin = fcmOrigin(target.url);
  const pool = new Http2Pool(origin, {
    connections: opts.connections ?? 4,
    maxConcurrentStreams: opts.maxConcurrentStreams ?? 100,
    requestTimeoutMs: opts.requestTimeoutMs ?? 10_000,
    ca: target.ca,
    dialer: opts.dialer,
  });
  const path = `/v1/projects/${encodeURIComponent(target.projectId)}/messages:send`;
  const authority = new URL(origin).host;

  /** The token to present, or the result that stands for the device when none can be had. */
  async function tokenOr(token: string, get: () => Promise<FleetToken>): Promise<FleetToken | FcmResult> {
    try {
      return await get();
    } catch (error) {
      if (error instanceof FcmCredentialsRefusedError) return { token, status: 401, errorCode: TOKEN_REFUSED };
      if (isProgrammingError(error)) throw error;
      // The token endpoint out (FcmTokenUnavailableError) or unreachable: no decision, held.
      return { token, status: 0, errorCode: 'TokenUnavailable' };
    }
  }

  const post = async (m: FcmMessage, bearer: FleetToken) =>
    resultOf(
      m.token,
      await pool.request(
        {
          [constants.HTTP2_HEADER_PATH]: path,
          [constants.HTTP2_HEADER_AUTHORITY]: authority,
          [constants.HTTP2_HEADER_SCHEME]: 'https',
          authorization: `Bearer ${bearer.value}`,
          'content-type': 'application/json; charset=UTF-8',
        },
        m.body,
      ),
    );

  /** `bearer`: the batch's token, asked once for all its messages. */
  async function sendOne(m: FcmMessage, bearer: Promise<FleetToken | FcmResult>): Promise<FcmResult> {
    const first = await bearer;
    if ('status' in first) return { ...first, token: m.token };
    const result = await post(m, first);
    if (result.status !== 401 || result.errorCode === 'THIRD_PARTY_AUTH_ERROR') return result;
    const fresh = await tokenOr(m.token, () => target.tokens.renew(first));
    if ('status' in fresh) return fresh;
    return post(m, fresh);
  }

  return {
    send: async (messages, answered) => {
      if (!messages.length) return [];
      const bearer = tokenOr('', () => target.tokens.current());
      if (!answered) return Promise.all(messages.map((m) => sendOne(m, bearer)));
      const t0 = performance.now();
      return Promise.all(
        messages.map((m) =>
          sendOne(m, bearer).then((r) => {
            answered(r.status, (performance.now() - t0) / 1000);
            return r;
          }),
        ),
      );
    },
    close: () => pool.close(),
  };
}
