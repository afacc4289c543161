// The `apns-*` header values of a send's pushes, in one place for every transport (Apple,
// "Sending notification requests to APNs"). Pure: the caller passes the moment the device's
// push starts.
import type { SendRequest } from '../send/request.js';

/** OneSignal's default time to live when `ttl` is absent: 3 days. */
export const DEFAULT_TTL_SECONDS = 259_200;

export interface ApnsHeaderValues {
  pushType: 'alert' | 'background';
  /** Absent: Apple's default (10). A background push always has 5. */
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
  const background = isBackgroundRequest(req);
  const values: ApnsHeaderValues = {
    pushType: background ? 'background' : 'alert',
    expiration: ttl === 0 ? 0 : Math.floor(nowSeconds) + ttl,
  };
  if (background) values.priority = 5;
  else if (a.priority !== undefined) values.priority = a.priority;
  if (a.collapseId !== undefined) values.collapseId = a.collapseId;
  return values;
}
