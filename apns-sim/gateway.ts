// The HTTP/2 side of the simulator: APNs' `POST /3/device/<token>` with Apple's validation order
// (auth → method/path → headers → payload → the device), then the scripted rules. Apple's rules
// per push type (apple-rules.ts) come last among the request's own checks.
// Reference: Apple, "Sending notification requests to APNs" and "Handling notification responses
// from APNs" (status codes and reason strings are used verbatim).
import { constants, type Http2Session, type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import { randomUUID } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import type { ProviderTokenVerifier } from './provider-token.js';
import type { Recorder } from './recorder.js';
import { checkPush } from './apple-rules.js';
import { decide, matchRule, type SimRule } from './rules.js';
import { DEVICE_TOKEN } from '../core/formats/device-token.js';
import { isUuid } from '../core/formats/uuid.js';

export type SimAuthMode = 'token' | 'certificate' | 'token-or-certificate' | 'none';

export interface GatewayState {
  auth: SimAuthMode;
  verifier: ProviderTokenVerifier;
  recorder: Recorder;
  rules: SimRule[];
  /** When set, other topics are 400 TopicDisallowed. */
  topics?: Set<string>;
  logger: Logger;
}

const PUSH_TYPES = new Set(['alert', 'background', 'location', 'voip', 'complication', 'fileprovider', 'mdm', 'liveactivity', 'pushtotalk', 'widgets', 'controls']);
const PRIORITIES = new Set(['1', '5', '10']);
// Device tokens: Apple's length is not documented (variable), so a token of the shape Herald
// accepts (core/formats/device-token.ts) is one; rule prefixes (e.g. "bad", "gone") come first.
const MAX_PAYLOAD = 4096;
const MAX_VOIP_PAYLOAD = 5120;
const SESSION_ID = Symbol('apnsSimConnection');

type NumberedSession = Http2Session & { [SESSION_ID]?: number };

export function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * A percent-encoded path segment, decoded; undefined when the encoding is broken (`%E0`, `%`),
 * which Apple answers 404 BadPath. decodeURIComponent throws there, and these run in a stream's
 * 'end' handler where a throw would end the simulator's process.
 */
export function decodePathPart(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

export function isDuplicated(headers: IncomingHttpHeaders, name: string): boolean {
  return Array.isArray(headers[name]);
}

export function numberSession(session: Http2Session, recorder: Recorder): void {
  (session as NumberedSession)[SESSION_ID] = recorder.connectionOpened();
}

/** The 1-based number numberSession gave the stream's connection (0: none). */
export function sessionNumber(session: Http2Session | undefined): number {
  return (session as NumberedSession | undefined)?.[SESSION_ID] ?? 0;
}

export interface Answer {
  status: number;
  reason?: string;
  timestamp?: number;
}

/** Whether the request names its provider by a provider token (else a certificate, or nothing under 'none'). */
export function usesToken(auth: SimAuthMode, headers: IncomingHttpHeaders): boolean {
  return auth === 'token' || (auth === 'token-or-certificate' && header(headers, 'authorization') !== undefined);
}

/**
 * Auth first, on every host of the simulator (gateway and channel management): APNs refuses
 * anything else from an unauthenticated provider.
 */
export function authenticate(state: Pick<GatewayState, 'auth' | 'verifier'>, stream: ServerHttp2Stream, headers: IncomingHttpHeaders): Answer | undefined {
  if (usesToken(state.auth, headers)) {
    const verdict = state.verifier.check(header(headers, 'authorization'));
    if (!verdict.ok) return { status: 403, reason: verdict.reason };
  } else if (state.auth !== 'none') {
    const socket = stream.session?.socket as TLSSocket | undefined;
    if (!socket?.authorized) return { status: 403, reason: 'BadCertificate' };
  }
  return undefined;
}

function validate(state: GatewayState, stream: ServerHttp2Stream, headers: IncomingHttpHeaders, token: string | undefined, bodyLength: number, body: Buffer): Answer | undefined {
  const refused = authenticate(state, stream, headers);
  if (refused) return refused;
  const useToken = usesToken(state.auth, headers);
  if (headers[':method'] !== 'POST') return { status: 405, reason: 'MethodNotAllowed' };
  if (token === undefined) return { status: 404, reason: 'BadPath' };
  if (token === '') return { status: 400, reason: 'MissingDeviceToken' };
  for (const name of ['apns-topic', 'apns-push-type', 'apns-priority', 'apns-expiration', 'apns-id', 'apns-collapse-id']) {
    if (isDuplicated(headers, name)) return { status: 400, reason: 'DuplicateHeaders' };
  }
  const topic = header(headers, 'apns-topic');
  // Token auth has no certificate to take the topic from, so it must be named.
  if (topic === undefined || topic === '') {
    if (useToken || state.auth === 'none') return { status: 400, reason: 'MissingTopic' };
  } else if (state.topics && !state.topics.has(topic)) {
    return { status: 400, reason: 'TopicDisallowed' };
  }
  const pushType = header(headers, 'apns-push-type');
  if (pushType !== undefined && !PUSH_TYPES.has(pushType)) return { status: 400, reason: 'InvalidPushType' };
  const priority = header(headers, 'apns-priority');
  if (priority !== undefined && !PRIORITIES.has(priority)) return { status: 400, reason: 'BadPriority' };
  const expiration = header(headers, 'apns-expiration');
  if (expiration !== undefined && !/^\d{1,12}$/.test(expiration)) return { status: 400, reason: 'BadExpirationDate' };
  const apnsId = header(headers, 'apns-id');
  if (apnsId !== undefined && !isUuid(apnsId)) return { status: 400, reason: 'BadMessageId' };
  const collapseId = header(headers, 'apns-collapse-id');
  if (collapseId !== undefined && Buffer.byteLength(collapseId) > 64) return { status: 400, reason: 'BadCollapseId' };
  if (bodyLength === 0) return { status: 400, reason: 'PayloadEmpty' };
  if (bodyLength > (pushType === 'voip' ? MAX_VOIP_PAYLOAD : MAX_PAYLOAD)) return { status: 413, reason: 'PayloadTooLarge' };
  return checkPush({ pushType, priority, topic, expiration }, body);
}

export function apnsHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(headers)) {
    if (name.startsWith('apns-')) out[name] = String(headers[name]);
  }
  return out;
}

export function respond(stream: ServerHttp2Stream, apnsId: string, answer: Answer): void {
  if (stream.destroyed || stream.closed) return;
  if (answer.status === 200) {
    stream.respond({ ':status': 200, 'apns-id': apnsId }, { endStream: true });
    return;
  }
  const body: { reason?: string; timestamp?: number } = { reason: answer.reason };
  if (answer.status === 410) body.timestamp = answer.timestamp ?? Date.now();
  stream.respond({ ':status': answer.status, 'apns-id': apnsId, 'content-type': 'application/json' });
  stream.end(JSON.stringify(body));
}

function breakTransport(stream: ServerHttp2Stream, kind: 'reset-stream' | 'goaway', logger: Logger): void {
  if (stream.destroyed || stream.closed) return;
  if (kind === 'reset-stream') {
    stream.close(constants.NGHTTP2_INTERNAL_ERROR);
    return;
  }
  const session = stream.session;
  if (!session || session.destroyed) return;
  // Like APNs going away for maintenance: GOAWAY naming the last stream processed, a JSON
  // reason in the opaque data, then the connection is closed; in-flight streams are lost.
  const lastStreamId = Math.max(0, (stream.id ?? 2) - 2);
  logger.debug({ lastStreamId }, 'apns-sim sending GOAWAY');
  session.goaway(constants.NGHTTP2_NO_ERROR, lastStreamId, Buffer.from(JSON.stringify({ reason: 'Shutdown' })));
  setImmediate(() => session.destroy());
}

export function handleStream(state: GatewayState, stream: ServerHttp2Stream, headers: IncomingHttpHeaders): void {
  const chunks: Buffer[] = [];
  let size = 0;
  stream.on('data', (chunk: Buffer) => {
    // Keep counting but stop keeping bytes far past the limit (a hostile payload can't eat memory).
    size += chunk.length;
    if (size <= MAX_VOIP_PAYLOAD + 1) chunks.push(chunk);
  });
  stream.on('error', () => {
    /* a client reset; nothing to answer */
  });
  stream.on('end', () => {
    const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
    const path = header(headers, ':path') ?? '';
    const token = path.startsWith('/3/device/') ? decodePathPart(path.slice(10).split('?')[0]) : undefined; // undefined: 404 BadPath
    const apnsId = header(headers, 'apns-id') ?? randomUUID();
    const connection = sessionNumber(stream.session);
    const { recorder } = state;

    let answer = validate(state, stream, headers, token, size, body);
    let delayMs = 0;
    let broken: 'reset-stream' | 'goaway' | undefined;
    if (!answer && token !== undefined) {
      const rule = matchRule(state.rules, token);
      const attempt = recorder.attempt(token, rule?.times !== undefined);
      const outcome = decide(rule, attempt);
      delayMs = outcome.delayMs;
      if (outcome.kind === 'error') answer = outcome;
      else if (outcome.kind !== 'ok') broken = outcome.kind;
      else if (!rule && !DEVICE_TOKEN.test(token)) answer = { status: 400, reason: 'BadDeviceToken' };
    } else if (token !== undefined && token !== '') {
      recorder.attempt(token, false);
    }
    const final: Answer = answer ?? { status: 200 };

    if (broken) recorder.brokeStream(connection);
    else recorder.answered(final.status, final.reason, connection);
    if (recorder.keepsDeliveries && token !== undefined) {
      recorder.keep({
        token,
        status: broken ? 0 : final.status,
        reason: broken ?? final.reason,
        apnsId,
        headers: apnsHeaders(headers),
        payload: body.subarray(0, Math.min(body.length, MAX_VOIP_PAYLOAD + 1)).toString('utf8'),
        connection,
        receivedAt: Date.now(),
      });
    }

    const act = (): void => (broken ? breakTransport(stream, broken, state.logger) : respond(stream, apnsId, final));
    if (delayMs > 0) setTimeout(act, delayMs);
    else act();
  });
}
