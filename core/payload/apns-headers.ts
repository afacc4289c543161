// The `apns-*` header values of a send's pushes, in one place for every transport (Apple,
// "Sending notification requests to APNs"). Pure: the caller passes the moment the device's
// push starts.
import type { SendRequest } from '../send-model/request.js';
import { PUSH_TYPES, type HeraldPushType } from './push-types.js';

/** OneSignal's default time to live when `ttl` is absent: 3 days. */
export const DEFAULT_TTL_SECONDS = 259_200;

export interface ApnsHeaderValues {
  pushType: HeraldPushType;
  /** Absent: Apple's default (10). Per type as core/payload/push-types.ts says (background always 5). */
  priority?: 1 | 5 | 10;
  /** apns-expiration: UNIX seconds; 0 = deliver now or never. */
  expiration: number;
  collapseId?: string;
}

/** The push type of a request: a Live Activity's, the override, else background or alert. */
export function requestPushType(req: SendRequest): HeraldPushType {
  if (req.liveActivity) return 'liveactivity';
  return messagePushType(req);
}

/** The push type of a message that is no Live Activity's (a send's report reads it too): the override, else background or alert. */
export function messagePushType(m: Pick<SendRequest, 'apns' | 'contents'>): HeraldPushType {
  const a = m.apns;
  if (a.pushTypeOverride !== undefined) return a.pushTypeOverride;
  return a.contentAvailable === true && Object.keys(m.contents).length === 0 ? 'background' : 'alert';
}

/** A background push: the override says so, or content_available without any text. */
export function isBackgroundRequest(req: SendRequest): boolean {
  return requestPushType(req) === 'background';
}

/** `nowSeconds`: UNIX seconds when the device's push starts (ttl counts from there). */
export function apnsHeaderValues(req: SendRequest, nowSeconds: number): ApnsHeaderValues {
  const a = req.apns;
  const ttl = a.ttlSeconds ?? DEFAULT_TTL_SECONDS;
  const pushType = requestPushType(req);
  const rule = PUSH_TYPES[pushType];
  // A type Apple wants now or never (push-to-talk) always goes with apns-expiration 0.
  const values: ApnsHeaderValues = { pushType, expiration: ttl === 0 || rule.expiresAtOnce ? 0 : Math.floor(nowSeconds) + ttl };
  // A background push's priority is fixed; the others take the request's, else their default.
  const priority = pushType === 'background' ? rule.defaultPriority : (a.priority ?? rule.defaultPriority);
  if (priority !== undefined) values.priority = priority;
  if (a.collapseId !== undefined) values.collapseId = a.collapseId;
  return values;
}
