// The checks FCM makes of a messages:send body before it looks at the token (FCM's REST reference,
// projects.messages; /work/shared/design/FCM.md): one `message` with exactly one target, `data` a
// map of strings with no reserved key, a known android.priority, a `ttl` duration, string
// notification fields, at most 4,096 bytes. A refusal names the field, as FCM's INVALID_ARGUMENT does.
import { FCM_MAX_MESSAGE_BYTES, fcmMessageBytes } from '../core/payload/fcm-size.js';

const RESERVED_DATA_KEYS = new Set(['from', 'notification', 'message_type']);
const TTL = /^\d{1,10}(\.\d{1,9})?s$/;
const COLOR = /^#[0-9a-fA-F]{6}$/;
const PRIORITIES = new Set(['NORMAL', 'HIGH']);
const NOTIFICATION_STRINGS = ['title', 'body', 'image'];
const ANDROID_NOTIFICATION_STRINGS = ['title', 'body', 'icon', 'color', 'sound', 'tag', 'click_action', 'channel_id', 'image'];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function stringsOnly(where: string, obj: Record<string, unknown>, keys: string[]): string | undefined {
  for (const k of keys) if (obj[k] !== undefined && typeof obj[k] !== 'string') return `Invalid value at '${where}.${k}': must be a string`;
  return undefined;
}

/** The message (the body's `message`) and the refusal's sentence, if any. */
export function checkMessage(body: unknown): { message?: Record<string, unknown>; error?: string } {
  if (!isObject(body) || !isObject(body.message)) return { error: "Invalid JSON payload received. 'message' is required" };
  const m = body.message;
  const targets = ['token', 'topic', 'condition'].filter((k) => m[k] !== undefined);
  if (targets.length !== 1) return { error: 'Exactly one of token, topic or condition must be set' };
  if (m.token !== undefined && (typeof m.token !== 'string' || m.token === '')) return { error: "Invalid value at 'message.token'" };
  if (m.data !== undefined) {
    if (!isObject(m.data)) return { error: "Invalid value at 'message.data': must be a map" };
    for (const [k, v] of Object.entries(m.data)) {
      if (typeof v !== 'string') return { error: `Invalid value at 'message.data[${k}].value' (TYPE_STRING)` };
      if (RESERVED_DATA_KEYS.has(k) || k.startsWith('google.') || k.startsWith('gcm.')) return { error: `Invalid data key: ${k} is reserved` };
    }
  }
  if (m.notification !== undefined) {
    if (!isObject(m.notification)) return { error: "Invalid value at 'message.notification'" };
    const e = stringsOnly('message.notification', m.notification, NOTIFICATION_STRINGS);
    if (e) return { error: e };
  }
  if (m.android !== undefined) {
    const e = checkAndroid(m.android);
    if (e) return { error: e };
  }
  if (fcmMessageBytes(m) > FCM_MAX_MESSAGE_BYTES) return { error: `Message is too big: ${fcmMessageBytes(m)} bytes, the limit is ${FCM_MAX_MESSAGE_BYTES}` };
  return { message: m };
}

function checkAndroid(a: unknown): string | undefined {
  if (!isObject(a)) return "Invalid value at 'message.android'";
  if (a.priority !== undefined && !PRIORITIES.has(a.priority as string)) return `Invalid value at 'message.android.priority' (${String(a.priority)})`;
  if (a.ttl !== undefined && (typeof a.ttl !== 'string' || !TTL.test(a.ttl))) return "Invalid value at 'message.android.ttl' (Format of google.protobuf.Duration)";
  if (a.collapse_key !== undefined && typeof a.collapse_key !== 'string') return "Invalid value at 'message.android.collapse_key'";
  if (a.notification !== undefined) {
    if (!isObject(a.notification)) return "Invalid value at 'message.android.notification'";
    const e = stringsOnly('message.android.notification', a.notification, ANDROID_NOTIFICATION_STRINGS);
    if (e) return e;
    if (a.notification.color !== undefined && !COLOR.test(a.notification.color as string)) return "Invalid value at 'message.android.notification.color': must be #rrggbb";
  }
  return undefined;
}
