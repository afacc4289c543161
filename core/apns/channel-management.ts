// Apple's channel management API for broadcast push (Apple, "Sending channel management requests
// to APNs"): create a Live Activity channel for the app's bundle id, read it, list them, delete
// one, on the management host of the app's environment (endpoint.ts; HERALD_APNS_BROADCAST_URL
// overrides it, the same CA settings apply). One request per activity at most, so Node's HTTP/2
// client is enough here: the lean transport is for the millions of device pushes (docs/apns.md).
// Header values go through the transport's one rule (core/formats/header-value.ts). Never throws
// for Apple's answer: each call resolves to the status and reason, or status 0 when none came or
// what came is unusable (a body past MAX_BODY, JSON that does not parse, a channel id not of
// Apple's shape, core/formats/channel-id.ts: it goes into a DB column, a payload and a header).
import { connect, type ClientHttp2Session, type OutgoingHttpHeaders } from 'node:http2';
import { randomUUID } from 'node:crypto';
import { channelManagementOrigin } from './endpoint.js';
import { localTokenSource } from './provider-token.js';
import { PresentedToken } from './presented-token.js';
import { tlsOptions } from './tls-options.js';
import type { ApnsTarget } from './types.js';
import { isHeaderValue } from '../formats/header-value.js';
import { isChannelId } from '../formats/channel-id.js';
import { directDialer, type Dialer } from '../net/dialer.js';

/** 0: no message stored; 1: the most recent one (a device subscribing later receives it). */
export type MessageStoragePolicy = 0 | 1;

export interface ChannelAnswer {
  /** Apple's HTTP status, or 0 when no answer came (connection, timeout). */
  status: number;
  reason?: string;
  /** create: the new channel's id. */
  channelId?: string;
  /** read: the channel's policy. */
  policy?: MessageStoragePolicy;
  /** list: the app's channel ids. */
  channels?: string[];
}

export interface ChannelManager {
  create(policy: MessageStoragePolicy): Promise<ChannelAnswer>;
  read(channelId: string): Promise<ChannelAnswer>;
  list(): Promise<ChannelAnswer>;
  delete(channelId: string): Promise<ChannelAnswer>;
  close(): void;
}

const TIMEOUT_MS = 10_000;
/** Apple's longest answer is a list of 10,000 channel ids (about 270 KB): anything past 1 MiB is refused. */
export const MAX_BODY = 1024 * 1024;

/** A JSON body's object, or undefined when it does not parse to one. */
function parseObject(text: string | undefined): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text ?? '');
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** An answer with what the calls read from it: the headers, the body, and the token generation it was sent with. */
type RawAnswer = ChannelAnswer & { headers?: Record<string, string>; body?: string; generation: number };

/** One request on the session `open` gives (a failure to open is a ConnectionError); status 0 with the reason when no usable answer came. */
function requestOnce(open: () => ClientHttp2Session, headers: OutgoingHttpHeaders, body: string | undefined, generation: number, timeoutMs: number): Promise<RawAnswer> {
  return new Promise((resolve) => {
    let answer: Record<string, string> = {};
    const chunks: Buffer[] = [];
    let stream;
    try {
      stream = open().request(headers, { endStream: body === undefined });
    } catch {
      return resolve({ status: 0, reason: 'ConnectionError', generation });
    }
    stream.setTimeout(timeoutMs, () => {
      stream.close();
      resolve({ status: 0, reason: 'Timeout', generation });
    });
    stream.on('response', (h) => (answer = Object.fromEntries(Object.entries(h).map(([k, v]) => [k, String(v)]))));
    let size = 0;
    stream.on('data', (d: Buffer) => {
      size += d.length;
      if (size <= MAX_BODY) return void chunks.push(d);
      stream.close();
      resolve({ status: 0, reason: 'BodyTooLarge', generation });
    });
    stream.on('error', () => resolve({ status: 0, reason: 'ConnectionError', generation }));
    stream.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let reason: string | undefined;
      const status = Number(answer[':status'] ?? 0);
      if (status >= 300) {
        const r = parseObject(text)?.reason;
        reason = typeof r === 'string' ? r : undefined;
      }
      resolve({ status, reason, headers: answer, body: text, generation });
    });
    if (body !== undefined) stream.end(body);
  });
}


/**
 * `target.topic` is the bundle id; `target.url` the management host override (HERALD_APNS_BROADCAST_URL).
 * `opts.signer`: the app's provider token, kept by the caller across managers (Apple refuses
 * tokens refreshed too often, TooManyProviderTokenUpdates: the fleet's, core/apns/presented-token.ts);
 * else one minted here.
 * `opts.dialer`: the way out (HTTPS_PROXY, NO_PROXY: core/net/dialer.ts); direct when absent.
 */
export function createChannelManager(target: ApnsTarget, opts: { timeoutMs?: number; signer?: PresentedToken; dialer?: Dialer } = {}): ChannelManager {
  const origin = channelManagementOrigin(target);
  const c = target.credentials;
  const signer = c.kind === 'token' ? (opts.signer ?? new PresentedToken(localTokenSource(c.keyP8, c.keyId, c.teamId))) : undefined;
  const base = `/1/apps/${encodeURIComponent(target.topic)}`;
  let session: ClientHttp2Session | undefined;

  function open(): ClientHttp2Session {
    if (!session || session.closed || session.destroyed) {
      session = connect(origin, { ...tlsOptions(target), createConnection: (opts.dialer ?? directDialer).http2Connection() });
      session.on('error', () => session?.destroy());
    }
    return session;
  }

  async function call(method: string, path: string, channelId?: string, body?: string): Promise<RawAnswer> {
    // A value HTTP/2 cannot carry never goes out (the transport's rule): a local failure.
    if (channelId !== undefined && !isHeaderValue(channelId)) return { status: 0, reason: 'Unframeable', generation: 0 };
    const send = async () => {
      // The database out (the fleet's token unreadable): no answer, as when Apple is unreachable.
      if (signer && !(await signer.ready().then(() => true, () => false))) return { status: 0, reason: 'ProviderTokenUnavailable', generation: 0 };
      const token = signer?.current();
      const headers: OutgoingHttpHeaders = { ':method': method, ':path': path, 'apns-request-id': randomUUID() };
      if (token) headers.authorization = token.authorization;
      if (channelId !== undefined) headers['apns-channel-id'] = channelId;
      if (body !== undefined) headers['content-type'] = 'application/json';
      return requestOnce(open, headers, body, token?.generation ?? 0, opts.timeoutMs ?? TIMEOUT_MS);
    };
    const first = await send();
    // As the gateway's transport: a token Apple calls expired is renewed and the call made once more.
    if (signer && first.status === 403 && first.reason === 'ExpiredProviderToken') {
      await signer.invalidate(first.generation).catch(() => undefined);
      return send();
    }
    return first;
  }

  return {
    async create(policy) {
      const a = await call('POST', `${base}/channels`, undefined, JSON.stringify({ 'message-storage-policy': policy, 'push-type': 'LiveActivity' }));
      if (a.status !== 201) return { status: a.status, reason: a.reason };
      const channelId = a.headers?.['apns-channel-id'];
      if (!channelId) return { status: 0, reason: 'NoChannelId' };
      return isChannelId(channelId) ? { status: 201, channelId } : { status: 0, reason: 'BadChannelId' };
    },
    async read(channelId) {
      const a = await call('GET', `${base}/channels`, channelId);
      if (a.status !== 200) return { status: a.status, reason: a.reason };
      const policy = parseObject(a.body)?.['message-storage-policy'];
      return policy === 0 || policy === 1 ? { status: 200, policy } : { status: 0, reason: 'BadBody' };
    },
    async list() {
      const a = await call('GET', `${base}/all-channels`);
      if (a.status !== 200) return { status: a.status, reason: a.reason };
      const answer = parseObject(a.body);
      const channels = answer?.channels ?? [];
      return answer && Array.isArray(channels) && channels.every((id) => typeof id === 'string' && isChannelId(id)) ? { status: 200, channels } : { status: 0, reason: 'BadBody' };
    },
    async delete(channelId) {
      const a = await call('DELETE', `${base}/channels`, channelId);
      return { status: a.status, reason: a.reason };
    },
    close() {
      session?.close();
    },
  };
}
