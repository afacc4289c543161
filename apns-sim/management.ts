// Apple's channel management API on the simulator's own management port, as
// api-manage-broadcast(.sandbox).push.apple.com serves it (Apple, "Sending channel management
// requests to APNs"): create a channel for a bundle id (201, its id in `apns-channel-id`), read
// one (its storage policy and push type), list a bundle id's channels, delete one (204). Every
// answer carries `apns-request-id`: the request's own, or a new UUID. Auth is the gateway's.
// Reasons Apple does not name are the simulator's own (docs/apns.md "Broadcast").
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import { authenticate, decodePathPart, header, isDuplicated, type Answer, type GatewayState } from './gateway.js';
import { isChannelIdShape, type Channel, type ChannelStore } from './channels.js';
import { answerJson, readBody } from './stream-body.js';
import { isUuid } from '../core/formats/uuid.js';

export interface ManagementState extends Pick<GatewayState, 'auth' | 'verifier' | 'topics' | 'logger'> {
  channels: ChannelStore;
}

/** A create request's body is a few dozen bytes; more is not a channel request. */
const MAX_BODY = 4096;
const PATH = /^\/1\/apps\/([^/?]+)\/(channels|all-channels)$/;

type Reply = Answer & { headers?: Record<string, string>; body?: unknown };

/** The channel a request names in `apns-channel-id`, or Apple's refusal. */
export function namedChannel(channels: ChannelStore, bundleId: string, headers: IncomingHttpHeaders): Channel | Answer {
  if (isDuplicated(headers, 'apns-channel-id')) return { status: 400, reason: 'DuplicateHeaders' };
  const id = header(headers, 'apns-channel-id');
  if (id === undefined || id === '') return { status: 400, reason: 'MissingChannelId' };
  const channel = isChannelIdShape(id) ? channels.get(bundleId, id) : undefined;
  // An id of the wrong shape, another app's, or one deleted: Apple's page names one reason for
  // a channel it does not know, and the simulator gives it for all three.
  return channel ?? { status: 400, reason: 'BadChannelId' };
}

function create(state: ManagementState, bundleId: string, body: Buffer): Reply {
  let request: unknown;
  try {
    request = JSON.parse(body.toString('utf8'));
  } catch {
    return { status: 400, reason: 'BadPayload' };
  }
  const fields = (typeof request === 'object' && request !== null ? request : {}) as Record<string, unknown>;
  const policy = fields['message-storage-policy'];
  if (policy !== 0 && policy !== 1) return { status: 400, reason: 'BadMessageStoragePolicy' };
  if (fields['push-type'] !== 'LiveActivity') return { status: 400, reason: 'InvalidPushType' };
  const channel = state.channels.create(bundleId, policy);
  if (!channel) return { status: 400, reason: 'CannotCreateChannelConfig' };
  state.logger.debug({ bundleId, channelId: channel.id, policy }, 'apns-sim channel created');
  return { status: 201, headers: { 'apns-channel-id': channel.id } };
}

function route(state: ManagementState, stream: ServerHttp2Stream, headers: IncomingHttpHeaders, body: Buffer, size: number): Reply {
  const refused = authenticate(state, stream, headers);
  if (refused) return refused;
  const requestId = header(headers, 'apns-request-id');
  if (requestId !== undefined && !isUuid(requestId)) return { status: 400, reason: 'BadRequestId' };
  const path = PATH.exec((header(headers, ':path') ?? '').split('?')[0]);
  if (!path) return { status: 404, reason: 'BadPath' };
  const bundleId = decodePathPart(path[1]);
  if (bundleId === undefined) return { status: 404, reason: 'BadPath' };
  if (state.topics && !state.topics.has(bundleId)) return { status: 400, reason: 'TopicDisallowed' };
  const method = headers[':method'];
  if (path[2] === 'all-channels') {
    if (method !== 'GET') return { status: 405, reason: 'MethodNotAllowed' };
    return { status: 200, body: { channels: state.channels.list(bundleId) } };
  }
  if (method === 'POST') return size > MAX_BODY ? { status: 413, reason: 'PayloadTooLarge' } : create(state, bundleId, body);
  if (method !== 'GET' && method !== 'DELETE') return { status: 405, reason: 'MethodNotAllowed' };
  const channel = namedChannel(state.channels, bundleId, headers);
  if (!('id' in channel)) return channel;
  if (method === 'GET') return { status: 200, body: { 'message-storage-policy': channel.policy, 'push-type': 'LiveActivity' } };
  state.channels.delete(bundleId, channel.id);
  state.logger.debug({ bundleId, channelId: channel.id }, 'apns-sim channel deleted');
  return { status: 204 };
}

export function handleManagementStream(state: ManagementState, stream: ServerHttp2Stream, headers: IncomingHttpHeaders): void {
  readBody(stream, MAX_BODY, (body, size) => {
    const reply = route(state, stream, headers, body, size);
    const requestId = header(headers, 'apns-request-id');
    const out = { ':status': reply.status, 'apns-request-id': requestId && isUuid(requestId) ? requestId : randomUUID(), ...reply.headers };
    answerJson(stream, out, reply.reason ? { reason: reply.reason } : reply.body);
  });
}
