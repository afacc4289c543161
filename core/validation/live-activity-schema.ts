// The bodies of the official client's startLiveActivity and updateLiveActivity
// (StartLiveActivityRequest, UpdateLiveActivityRequest: their wire names), defined once in
// TypeBox like the send body, whose fields they share by reference (texts, audience, name,
// idempotency key, relevance score, sound): the api's shape check and the OpenAPI request schemas
// come from these. Lengths and relations between fields are the rule stage's
// (validate-live-activity.ts), each with its own sentence.
import Type, { type Static } from 'typebox';
import { SendBodySchema } from './send-body-schema.js';
import { shapeSchema } from './schema-views.js';
import { SHAPE_MESSAGES, shapeCheck } from './send-schema.js';
import { LIMITS } from './limits.js';
import { ACTIVITY_ID_MAX_CHARS } from '../live-activities/names.js';

const send = SendBodySchema.properties;
/** Unix seconds up to 2100-01-01: far enough for any activity, and a time in milliseconds is refused. */
export const MAX_UNIX_SECONDS = 4_102_444_800;

const unixSeconds = (description: string) => Type.Integer({ minimum: 0, maximum: MAX_UNIX_SECONDS, description });
const freeObject = (description: string) =>
  Type.Unsafe<Record<string, unknown>>({ type: 'object', description, 'x-herald-free': true });
const eventOf = <const V extends string>(values: readonly V[], description: string) =>
  Type.Unsafe<V>({ type: 'string', enum: [...values], description });

/** What both calls carry. */
const common = {
  name: send.name,
  event_updates: freeObject("aps.content-state: the activity's ContentState, as the app's ActivityAttributes decode it."),
  contents: Type.Optional(Type.Unsafe<Record<string, string>>({ ...send.contents, description: 'The alert text by language code → aps.alert.body.' })),
  headings: send.headings,
  ios_sound: Type.Optional(Type.String({ maxLength: LIMITS.ios_sound, description: 'A sound file of the app bundle → aps.alert.sound (with contents).' })),
  // Read by both calls (validate-live-activity.ts readApns), so shaped for both.
  sound: Type.Optional(Type.String({ maxLength: LIMITS.ios_sound, description: 'The older name of ios_sound.' })),
  stale_date: Type.Optional(unixSeconds('Unix seconds → aps.stale-date: the activity shows as out of date from then.')),
  priority: Type.Optional(Type.Unsafe<5 | 10>({ type: 'integer', enum: [5, 10], description: 'apns-priority 5 or 10; default 10.' })),
  ios_relevance_score: send.ios_relevance_score,
  idempotency_key: send.idempotency_key,
};

export const UpdateLiveActivityBodySchema = Type.Object({
  ...common,
  event: eventOf(['update', 'end'] as const, 'update changes the activity; end ends it (its tokens are dropped once delivered).'),
  dismissal_date: Type.Optional(unixSeconds('Unix seconds → aps.dismissal-date, only with event end: when the ended activity leaves the Lock Screen.')),
});

export const StartLiveActivityBodySchema = Type.Object({
  ...common,
  event: Type.Optional(eventOf(['start'] as const, 'start (the only value).')),
  activity_id: Type.String({ maxLength: ACTIVITY_ID_MAX_CHARS, description: 'The id the app will register the new activity\'s update token under.' }),
  event_attributes: freeObject('aps.attributes: the ActivityAttributes values of the new activity. Herald adds onesignal: {activityId: activity_id} (for OneSignal\'s iOS SDK); a onesignal key of its own is refused.'),
  contents: send.contents,
  included_segments: send.included_segments,
  tag: send.tag,
  filters: send.filters,
  excluded_segments: send.excluded_segments,
  include_subscription_ids: send.include_subscription_ids,
  include_external_ids: send.include_external_ids,
  include_aliases: send.include_aliases,
});

export type UpdateLiveActivityBody = Partial<Omit<Static<typeof UpdateLiveActivityBodySchema>, 'idempotency_key'>> & { idempotency_key?: unknown };
export type StartLiveActivityBody = Partial<Omit<Static<typeof StartLiveActivityBodySchema>, 'idempotency_key' | 'tag' | 'filters' | 'excluded_segments'>> & {
  idempotency_key?: unknown;
  tag?: unknown;
  filters?: unknown;
  excluded_segments?: unknown;
};

/** One sentence per field of the two bodies (the send body's where the field is the same). */
export const LIVE_ACTIVITY_SHAPE_MESSAGES: Record<string, string> = {
  ...SHAPE_MESSAGES,
  event_updates: 'event_updates is required: an object with the activity\'s ContentState, such as {"score": "2-1"}.',
  event_attributes: 'event_attributes is required: an object with the ActivityAttributes values of the activity to start.',
  activity_id: `activity_id is required: the id the app registers the new activity's update token under (text, at most ${ACTIVITY_ID_MAX_CHARS} characters).`,
  stale_date: 'stale_date is a Unix time in whole seconds, such as 1767225600.',
  dismissal_date: 'dismissal_date is a Unix time in whole seconds, such as 1767225600.',
  priority: 'priority of a Live Activity push is 5 or 10.',
  sound: 'sound must be text: the name of a sound file in the app (the older name of ios_sound).',
};
const UPDATE_EVENT = 'event is required: update or end.';

export const checkUpdateShape = shapeCheck<UpdateLiveActivityBody>(shapeSchema(UpdateLiveActivityBodySchema), {
  ...LIVE_ACTIVITY_SHAPE_MESSAGES,
  event: UPDATE_EVENT,
});
export const checkStartShape = shapeCheck<StartLiveActivityBody>(shapeSchema(StartLiveActivityBodySchema), {
  ...LIVE_ACTIVITY_SHAPE_MESSAGES,
  event: 'event of a start is start (or absent).',
});
