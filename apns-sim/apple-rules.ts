// Apple's rules for one push, by push type and header, as the simulator enforces them so tests
// prove that Herald builds what Apple accepts. References: Apple, "Sending notification requests
// to APNs" (headers, topic suffixes, priorities), "Generating a remote notification" (the `aps`
// keys and their values) and "Pushing background updates to your App" (no alert, sound or badge;
// priority 5). Reasons are Apple's; Apple names none for a payload whose `aps` values are wrong,
// so that one is the simulator's own `BadPayload` (docs/apns.md).

/** The keys Apple documents in `aps` (alerts, background, Live Activities and widgets). */
export const APS_KEYS = new Set([
  'alert', 'badge', 'sound', 'thread-id', 'category', 'content-available', 'mutable-content',
  'target-content-id', 'interruption-level', 'relevance-score', 'filter-criteria', 'stale-date',
  'content-state', 'timestamp', 'events', 'event', 'dismissal-date', 'attributes-type', 'attributes',
]);
/** The keys Apple documents in `aps.alert`. */
export const ALERT_KEYS = new Set([
  'title', 'subtitle', 'body', 'launch-image', 'title-loc-key', 'title-loc-args', 'subtitle-loc-key',
  'subtitle-loc-args', 'loc-key', 'loc-args', 'summary-arg', 'summary-arg-count',
]);
export const INTERRUPTION_LEVELS = new Set(['passive', 'active', 'time-sensitive', 'critical']);
/** The topic each push type needs: the bundle id and this suffix. */
const TOPIC_SUFFIX: Record<string, string> = {
  voip: '.voip',
  complication: '.complication',
  fileprovider: '.pushkit.fileprovider',
  location: '.location-query',
  liveactivity: '.push-type.liveactivity',
  pushtotalk: '.voip-ptt',
};
const SUFFIXES = Object.values(TOPIC_SUFFIX);

export interface RuleAnswer {
  status: number;
  reason: string;
}

const bad = (reason: string): RuleAnswer => ({ status: 400, reason });

/** The topic fits the push type: its suffix for types that have one, none of them for the others. */
export function checkTopic(pushType: string, topic: string | undefined): RuleAnswer | undefined {
  if (topic === undefined || topic === '') return undefined; // MissingTopic is the gateway's check
  const suffix = TOPIC_SUFFIX[pushType];
  if (suffix !== undefined) return topic.endsWith(suffix) ? undefined : bad('BadTopic');
  return SUFFIXES.some((s) => topic.endsWith(s)) ? bad('BadTopic') : undefined;
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
export function checkPush(headers: { pushType?: string; priority?: string; topic?: string }, body: Buffer): RuleAnswer | undefined {
  const pushType = headers.pushType ?? 'alert';
  const topicProblem = checkTopic(pushType, headers.topic);
  if (topicProblem) return topicProblem;
  if (pushType === 'background' && headers.priority !== undefined && headers.priority !== '5') return bad('BadPriority');
  let payload: unknown;
  try {
    payload = JSON.parse(body.toString('utf8'));
  } catch {
    return bad('BadPayload');
  }
  if (!isObject(payload) || !isObject(payload.aps)) return bad('BadPayload');
  const aps = payload.aps;
  if (pushType === 'background') {
    // A background push wakes the app and shows nothing: content-available 1, no alert, sound or badge.
    if (aps['content-available'] !== 1 || 'alert' in aps || 'sound' in aps || 'badge' in aps) return bad('InvalidPushType');
  }
  return checkApsValues(aps);
}
