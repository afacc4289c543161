// Which APNs host a target talks to. Apple: "Sending notification requests to APNs" — development
// server api.sandbox.push.apple.com:443, production server api.push.apple.com:443.

export const APNS_PRODUCTION_URL = 'https://api.push.apple.com';
export const APNS_SANDBOX_URL = 'https://api.sandbox.push.apple.com';

/** The origin (scheme://host:port) to connect to; `url` wins when set. */
export function apnsOrigin(target: { environment: 'production' | 'sandbox'; url?: string }): string {
  if (target.url) {
    const u = new URL(target.url);
    if (u.protocol !== 'https:') throw new TypeError(`APNs url must be https, got ${u.protocol}`);
    return u.origin;
  }
  return target.environment === 'production' ? APNS_PRODUCTION_URL : APNS_SANDBOX_URL;
}

// Apple, "Sending channel management requests to APNs": broadcast channels are managed on hosts
// of their own, development api-manage-broadcast.sandbox.push.apple.com:2195 and production
// api-manage-broadcast.push.apple.com:2196.
export const APNS_BROADCAST_PRODUCTION_URL = 'https://api-manage-broadcast.push.apple.com:2196';
export const APNS_BROADCAST_SANDBOX_URL = 'https://api-manage-broadcast.sandbox.push.apple.com:2195';

/** The channel management origin; `url` (HERALD_APNS_BROADCAST_URL) wins when set. */
export function channelManagementOrigin(target: { environment: 'production' | 'sandbox'; url?: string }): string {
  if (target.url) return apnsOrigin(target);
  return target.environment === 'production' ? APNS_BROADCAST_PRODUCTION_URL : APNS_BROADCAST_SANDBOX_URL;
}
