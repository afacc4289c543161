// The `apns-*` header values of a send's pushes, in one place for every transport (Apple,
// "Sending notification requests to APNs"). Pure: the caller passes the moment the device's
// push starts.
import type { SendRequest } from '../send-model/request.js';
import { PUSH_TYPES, type HeraldPushType } from './push-types.js';

/** OneSignal's default time to live when `ttl` is absent: 3 days. */
export const DEFAULT_TTL_SECONDS = 259_200;

export interface ApnsHeaderValues {
  pushType: HeraldPushType;
  /** Absent: Apple's default (10). A background push always has 5; a Live Activity push 5 or 10. */
  priority?: 1 | 5 | 10;
  /** apns-expiration: UNIX seconds; 0 = deliver now or never. */
  expiration: number;
  collapseId?: string;
}

/** A background push: the override says so, or content_available without any text. */
export function isBackgroundRequest(req: SendRequest): boolean {
  const a = req.apns;
  if (a.pushTypeOverride !== undefined) return a.pushTypeOverride === 'background';
  return a.contentAvailable === true && Object.keys(req.contents).length === 0;
}

/** `nowSeconds`: UNIX seconds when the device's push starts (ttl counts from there). */
export function apnsHeaderValues(req: SendRequest, nowSeconds: number): ApnsHeaderValues {
  const a = req.apns;
  const ttl = a.ttlSeconds ?? DEFAULT_TTL_SECONDS;
  const pushType: HeraldPushType = req.liveActivity ? 'liveactivity' : isBackgroundRequest(req) ? 'background' : 'alert';
  const values: ApnsHeaderValues = { pushType, expiration: ttl === 0 ? 0 : Math.floor(nowSeconds) + ttl };
  // A background push's priority is fixed; the others take the request's, else their default.
  const priority = pushType === 'background' ? PUSH_TYPES.background.defaultPriority : (a.priority ?? PUSH_TYPES[pushType].defaultPriority);
  if (priority !== undefined) values.priority = priority;
  if (a.collapseId !== undefined) values.collapseId = a.collapseId;
  return values;
}
