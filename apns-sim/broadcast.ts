// The broadcast send on the simulator's gateway port (Apple, "Sending broadcast push notification
// requests to APNs"): `POST /4/broadcasts/apps/<bundle id>` with `apns-channel-id` and
// `apns-push-type: liveactivity`, checked in the gateway's order (auth → method and path →
// headers → the channel → payload → ActivityKit's rules), answered 200 with `apns-request-id`
// and `apns-id`. The delivery log keeps the request once (token '', `broadcast`) and one record
// per device a test subscribed to the channel, with the same apns-id: tests see both.
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import { checkPush } from './apple-rules.js';
import { apnsHeaders, authenticate, decodePathPart, header, isDuplicated, type Answer, type GatewayState } from './gateway.js';
import { namedChannel } from './management.js';
import type { Channel, ChannelStore, StoredMessage } from './channels.js';
import type { Recorder } from './recorder.js';
import { answerJson, readBody } from './stream-body.js';
import { isUuid } from '../core/formats/uuid.js';

export const BROADCAST_PATH_PREFIX = '/4/broadcasts/apps/';
/** A Live Activity payload's limit, as for a push to a token. */
const MAX_PAYLOAD = 4096;
const PRIORITIES = new Set(['1', '5', '10']);

export interface BroadcastState extends GatewayState {
  channels: ChannelStore;
}

function check(state: BroadcastState, stream: ServerHttp2Stream, headers: IncomingHttpHeaders, body: Buffer, size: number): Answer | Channel {
  const refused = authenticate(state, stream, headers);
  if (refused) return refused;
  if (headers[':method'] !== 'POST') return { status: 405, reason: 'MethodNotAllowed' };
  const bundleId = decodePathPart((header(headers, ':path') ?? '').slice(BROADCAST_PATH_PREFIX.length).split('?')[0]);
  if (bundleId === undefined || bundleId === '' || bundleId.includes('/')) return { status: 404, reason: 'BadPath' };
  for (const name of ['apns-push-type', 'apns-priority', 'apns-expiration', 'apns-request-id']) {
    if (isDuplicated(headers, name)) return { status: 400, reason: 'DuplicateHeaders' };
  }
  if (state.topics && !state.topics.has(bundleId)) return { status: 400, reason: 'TopicDisallowed' };
  // Channels carry Live Activity updates only.
  if (header(headers, 'apns-push-type') !== 'liveactivity') return { status: 400, reason: 'InvalidPushType' };
  const priority = header(headers, 'apns-priority');
  if (priority !== undefined && !PRIORITIES.has(priority)) return { status: 400, reason: 'BadPriority' };
  const expiration = header(headers, 'apns-expiration');
  if (expiration !== undefined && !/^\d{1,12}$/.test(expiration)) return { status: 400, reason: 'BadExpirationDate' };
  const requestId = header(headers, 'apns-request-id');
  if (requestId !== undefined && !isUuid(requestId)) return { status: 400, reason: 'BadRequestId' };
  const channel = namedChannel(state.channels, bundleId, headers);
  if (!('id' in channel)) return channel;
  // A channel that stores nothing cannot keep a message for later: its pushes expire at once.
  if (channel.policy === 0 && expiration !== undefined && Number(expiration) !== 0) return { status: 400, reason: 'BadExpirationDate' };
  if (size === 0) return { status: 400, reason: 'PayloadEmpty' };
  if (size > MAX_PAYLOAD) return { status: 413, reason: 'PayloadTooLarge' };
  return checkPush({ pushType: 'liveactivity', priority }, body) ?? channel;
}

/** One record per subscribed device that receives `message` now. */
function deliver(recorder: Recorder, channel: Channel, devices: Iterable<string>, message: StoredMessage, connection: number): void {
  for (const token of devices) {
    recorder.keep({ token, status: 200, apnsId: message.apnsId, headers: message.headers, payload: message.payload, connection, receivedAt: Date.now(), channelId: channel.id });
  }
}

export function handleBroadcastStream(state: BroadcastState, stream: ServerHttp2Stream, headers: IncomingHttpHeaders, connection: number): void {
  readBody(stream, MAX_PAYLOAD + 1, (body, size) => {
    const verdict = check(state, stream, headers, body, size);
    const apnsId = randomUUID();
    const requestId = header(headers, 'apns-request-id');
    const answerHeaders = { 'apns-request-id': requestId && isUuid(requestId) ? requestId : randomUUID(), 'apns-id': apnsId };
    const channel = 'id' in verdict ? verdict : undefined;
    const status = channel ? 200 : (verdict as Answer).status;
    const reason = channel ? undefined : (verdict as Answer).reason;
    state.recorder.answered(status, reason, connection);
    const message: StoredMessage = {
      apnsId,
      headers: apnsHeaders(headers),
      payload: body.toString('utf8'),
      expiration: Number(header(headers, 'apns-expiration') ?? 0),
    };
    state.recorder.keep({ token: '', status, reason, apnsId, headers: message.headers, payload: message.payload, connection, receivedAt: Date.now(), channelId: channel?.id ?? header(headers, 'apns-channel-id'), broadcast: true });
    if (!channel) {
      answerJson(stream, { ':status': status, ...answerHeaders }, { reason });
      return;
    }
    deliver(state.recorder, channel, channel.devices, message, connection);
    if (channel.policy === 1) channel.lastMessage = message;
    answerJson(stream, { ':status': 200, ...answerHeaders });
  });
}

/**
 * What ActivityKit does when an activity subscribes to a channel, for tests: the device joins it
 * and, under the most-recent-message policy, receives the stored message if it has not expired.
 * False when no channel has that id.
 */
export function subscribeDevice(state: Pick<BroadcastState, 'recorder' | 'channels'>, channelId: string, token: string): boolean {
  const channel = state.channels.find(channelId);
  if (!channel) return false;
  channel.devices.add(token);
  const stored = channel.lastMessage;
  if (channel.policy === 1 && stored && stored.expiration * 1000 > Date.now()) {
    deliver(state.recorder, channel, [token], stored, 0);
  }
  return true;
}
