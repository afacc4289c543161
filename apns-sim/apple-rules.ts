// Apple's rules for one push, by push type and header, as the simulator enforces them so tests
// prove that Herald builds what Apple accepts. References: Apple, "Sending notification requests
// to APNs" (headers, topic suffixes, priorities), "Generating a remote notification" (the `aps`
// keys and their values) and "Pushing background updates to your App" (no alert, sound or badge;
// priority 5). Reasons are Apple's; Apple names none for a payload whose `aps` values are wrong,
// so that one is the simulator's own `BadPayload` (docs/apns.md). Live Activity pushes: "Starting
// and updating Live Activities with ActivityKit push notifications". The other types (issue 29):
// PushToTalk's "Creating a push-to-talk app" (priority 10, apns-expiration 0), WidgetKit's
// "Updating widgets with WidgetKit push notifications" and "Updating controls locally and
// remotely" (`{"aps": {"content-changed": true}}`), Core Location's location push (priority 5 or 10).
import { PUSH_TYPES } from '../core/payload/push-types.js';

/** The keys Apple documents in `aps` (alerts, background, Live Activities and widgets). */
export const APS_KEYS = new Set([
  'alert', 'badge', 'sound', 'thread-id', 'category', 'content-available', 'mutable-content',
  'target-content-id', 'interruption-level', 'relevance-score', 'filter-criteria', 'stale-date',
  'content-state', 'timestamp', 'events', 'event', 'dismissal-date', 'attributes-type', 'attributes',
  'content-changed',
]);
/** The keys Apple documents in `aps.alert`. */
export const ALERT_KEYS = new Set([
  'title', 'subtitle', 'body', 'launch-image', 'title-loc-key', 'title-loc-args', 'subtitle-loc-key',
  'subtitle-loc-args', 'loc-key', 'loc-args', 'summary-arg', 'summary-arg-count',
]);
export const INTERRUPTION_LEVELS = new Set(['passive', 'active', 'time-sensitive', 'critical']);
/** The keys Apple documents in the `aps` of a Live Activity push, and in its alert. */
export const LIVE_ACTIVITY_APS_KEYS = new Set([
  'timestamp', 'event', 'content-state', 'stale-date', 'dismissal-date', 'relevance-score', 'alert', 'attributes-type', 'attributes',
  'input-push-channel',
]);
export const LIVE_ACTIVITY_ALERT_KEYS = new Set(['title', 'body', 'sound']);
const LIVE_ACTIVITY_EVENTS = new Set(['start', 'update', 'end']);
/** The topic suffixes of the push types that have one (Herald's table, which its transport reads too). */
const SUFFIXES = Object.values(PUSH_TYPES).map((t) => t.topicSuffix).filter((suffix) => suffix !== '');

export interface RuleAnswer {
  status: number;
  reason: string;
}

const bad = (reason: string): RuleAnswer => ({ status: 400, reason });

/** The topic fits the push type: its suffix for types that have one, none of them for the others. */
export function checkTopic(pushType: string, topic: string | undefined): RuleAnswer | undefined {
  if (topic === undefined || topic === '') return undefined; // MissingTopic is the gateway's check
  const suffix = PUSH_TYPES[pushType]?.topicSuffix;
  if (suffix) return topic.endsWith(suffix) ? undefined : bad('BadTopic');
  return SUFFIXES.some((s) => topic.endsWith(s)) ? bad('BadTopic') : undefined;
}

const isSeconds = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/**
 * A Live Activity push: the timestamp of the change, its event, the content-state (an object) of
 * a start or update, the attributes-type and attributes of a start, a dismissal-date only when it
 * ends, dates in whole seconds, an input-push-channel (text) only on a start, and only
 * ActivityKit's keys in `aps` and its alert.
 */
function checkLiveActivity(aps: Record<string, unknown>): RuleAnswer | undefined {
  if (Object.keys(aps).some((k) => !LIVE_ACTIVITY_APS_KEYS.has(k))) return bad('BadPayload');
  if (!isSeconds(aps.timestamp) || typeof aps.event !== 'string' || !LIVE_ACTIVITY_EVENTS.has(aps.event)) return bad('BadPayload');
  const state = aps['content-state'];
  if (state === undefined ? aps.event !== 'end' : !isObject(state)) return bad('BadPayload');
  if (aps.event === 'start' && !(typeof aps['attributes-type'] === 'string' && isObject(aps.attributes))) return bad('BadPayload');
  if (aps.event !== 'start' && ('attributes-type' in aps || 'attributes' in aps)) return bad('BadPayload');
  // iOS 18: a push-to-start may name the broadcast channel the new activity subscribes to.
  if ('input-push-channel' in aps && (aps.event !== 'start' || typeof aps['input-push-channel'] !== 'string' || aps['input-push-channel'] === '')) return bad('BadPayload');
  if ('dismissal-date' in aps && (aps.event !== 'end' || !isSeconds(aps['dismissal-date']))) return bad('BadPayload');
  if ('stale-date' in aps && !isSeconds(aps['stale-date'])) return bad('BadPayload');
  const alert = aps.alert;
  if (alert !== undefined && !(isObject(alert) && Object.keys(alert).every((k) => LIVE_ACTIVITY_ALERT_KEYS.has(k)))) return bad('BadPayload');
  return undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The `aps` values Apple documents a range or a set for. */
function checkApsValues(aps: Record<string, unknown>): RuleAnswer | undefined {
  const level = aps['interruption-level'];
  if (level !== undefined && !(typeof level === 'string' && INTERRUPTION_LEVELS.has(level))) return bad('BadPayload');
  const score = aps['relevance-score'];
  if (score !== undefined && !(typeof score === 'number' && score >= 0 && score <= 1)) return bad('BadPayload');
  for (const flag of ['content-available', 'mutable-content']) {
    if (aps[flag] !== undefined && aps[flag] !== 1 && aps[flag] !== 0) return bad('BadPayload');
  }
  const sound = aps.sound;
  if (isObject(sound)) {
    const volume = sound.volume;
    if (sound.critical !== 1 && sound.critical !== 0) return bad('BadPayload');
    if (volume !== undefined && !(typeof volume === 'number' && volume >= 0 && volume <= 1)) return bad('BadPayload');
  }
  return undefined;
}

/**
 * Apple's rules for the push type, the priority and the payload. `pushType` is the header as
 * sent (absent = alert, as Apple assumes for iOS).
 */
export function checkPush(headers: { pushType?: string; priority?: string; topic?: string; expiration?: string }, body: Buffer): RuleAnswer | undefined {
  const pushType = headers.pushType ?? 'alert';
  const topicProblem = checkTopic(pushType, headers.topic);
  if (topicProblem) return topicProblem;
  // Background pushes go at 5 only, Live Activity and location pushes at 5 or 10, push-to-talk at 10.
  const rule = PUSH_TYPES[pushType];
  const priorities = rule?.priorities;
  if (priorities && headers.priority !== undefined && !(priorities as readonly string[]).includes(headers.priority)) return bad('BadPriority');
  // Push-to-talk is delivered now or never: apns-expiration 0 (absent is Apple's "store it").
  if (rule?.expiresAtOnce && headers.expiration !== '0') return bad('BadExpirationDate');
  let payload: unknown;
  try {
    payload = JSON.parse(body.toString('utf8'));
  } catch {
    return bad('BadPayload');
  }
  if (!isObject(payload) || !isObject(payload.aps)) return bad('BadPayload');
  const aps = payload.aps;
  if (pushType === 'liveactivity') return checkLiveActivity(aps) ?? checkApsValues(aps);
  // A WidgetKit push reloads the widget or control: content-changed true is its whole aps.
  if (rule?.payload === 'content-changed' && !(aps['content-changed'] === true && Object.keys(aps).length === 1)) return bad('BadPayload');
  if (pushType === 'background') {
    // A background push wakes the app and shows nothing: content-available 1, no alert, sound or badge.
    if (aps['content-available'] !== 1 || 'alert' in aps || 'sound' in aps || 'badge' in aps) return bad('InvalidPushType');
  }
  return checkApsValues(aps);
}
