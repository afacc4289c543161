// validateLiveActivityRequest: the body (and path) of startLiveActivity or updateLiveActivity →
// SendRequest with its `liveActivity` part, or a ValidationError (422) listing every problem.
// The same two stages as a send (validate-send.ts): shapes by the bodies' one schema
// (live-activity-schema.ts), then the rules, reusing the send's readers for what means the same
// (texts, audience, idempotency key, name), and last Apple's 4 KB on the exact payload.
import { ValidationError, type FieldIssue } from '../errors.js';
import { ACTIVITY_ID, ACTIVITY_ID_RULE, ACTIVITY_TYPE, ACTIVITY_TYPE_RULE } from '../live-activities/names.js';
import { APNS_PAYLOAD_LIMIT_BYTES, largestPayloadBytes } from '../payload/apns-payload.js';
import type { ApnsOptions, LiveActivityRequest, SendRequest, SendTarget } from '../send-model/request.js';
import { readIdempotencyKey } from './idempotency-key.js';
import { LIMITS } from './limits.js';
import { codePointLength } from './text.js';
import { checkStartShape, checkUpdateShape, type StartLiveActivityBody, type UpdateLiveActivityBody } from './live-activity-schema.js';
import { readBookkeeping } from './send-bookkeeping.js';
import { readTexts } from './send-content.js';
import { BODY_NOT_OBJECT, CONTENTS_REQUIRED, type SendBody } from './send-schema.js';
import { readExcludedSegments, readTarget } from './send-target.js';

export const LIVE_ACTIVITY_TOO_LARGE =
  'This Live Activity push is larger than 4KB (event_updates, event_attributes and the texts together). It is not cut short.';
export const ALERT_NEEDS_CONTENTS = 'headings and ios_sound belong to the alert of the change: send contents with them.';
export const DISMISSAL_ONLY_ON_END = 'dismissal_date is only for event end.';
export const SOUNDS_DIFFER = 'ios_sound and sound differ: sound is the older name of ios_sound. Send one.';
export const ONESIGNAL_ATTRIBUTE_RESERVED =
  "event_attributes.onesignal is Herald's to set: it carries activity_id to OneSignal's iOS SDK (OneSignalLiveActivityAttributeData). Leave it out.";

export interface LiveActivityValidationInput {
  /** startLiveActivity (`activityType` from its path) or updateLiveActivity (`activityId` from its path). */
  call: { event: 'start'; activityType: string } | { event: 'update'; activityId: string };
  body: unknown;
  idempotencyHeader?: string;
  app: { id: string; bundleId: string; segmentNames: string[] };
  now: Date;
}

type Body = StartLiveActivityBody & UpdateLiveActivityBody;

/** The alert fields: optional on an update (a silent change), required on a start (Apple shows the new activity with it). */
function readAlert(body: Body, present: Set<string>, start: boolean, issues: FieldIssue[]) {
  if (!start && !present.has('contents')) {
    if (present.has('headings') || present.has('ios_sound') || present.has('sound')) issues.push({ field: 'contents', message: ALERT_NEEDS_CONTENTS });
    return readTexts(body as SendBody, issues, true);
  }
  if (!present.has('contents')) {
    issues.push({ field: 'contents', message: CONTENTS_REQUIRED });
    return undefined;
  }
  return readTexts(body as SendBody, issues);
}

function readApns(body: Body, issues: FieldIssue[]): ApnsOptions {
  const apns: ApnsOptions = {};
  if (body.priority !== undefined) apns.priority = body.priority;
  if (body.ios_relevance_score !== undefined) apns.relevanceScore = body.ios_relevance_score;
  // The shape check leaves lengths to this stage (schema-views.ts): the send's limit, its sentence.
  for (const field of ['ios_sound', 'sound'] as const) {
    const value = body[field];
    if (value !== undefined && codePointLength(value) > LIMITS.ios_sound) issues.push({ field, message: `${field} is longer than ${LIMITS.ios_sound} characters.` });
  }
  if (body.ios_sound !== undefined && body.sound !== undefined && body.ios_sound !== body.sound) issues.push({ field: 'sound', message: SOUNDS_DIFFER });
  const sound = body.ios_sound ?? body.sound;
  if (sound !== undefined && sound !== '') apns.sound = sound;
  return apns;
}

function readLiveActivity(input: LiveActivityValidationInput, body: Body, issues: FieldIssue[]): LiveActivityRequest | undefined {
  const { call } = input;
  const before = issues.length;
  const la: LiveActivityRequest = {
    event: call.event === 'start' ? 'start' : (body.event ?? 'update'),
    activityId: call.event === 'update' ? call.activityId : (body.activity_id ?? ''),
    contentState: body.event_updates ?? {},
    timestamp: Math.floor(input.now.getTime() / 1000),
  };
  if (call.event === 'start') {
    la.activityType = call.activityType;
    la.attributes = body.event_attributes ?? {};
    if (Object.prototype.hasOwnProperty.call(la.attributes, 'onesignal')) issues.push({ field: 'event_attributes.onesignal', message: ONESIGNAL_ATTRIBUTE_RESERVED });
    if (body.activity_id !== undefined && !ACTIVITY_ID.test(body.activity_id)) issues.push({ field: 'activity_id', message: ACTIVITY_ID_RULE });
  }
  if (body.stale_date !== undefined) la.staleDate = body.stale_date;
  if (body.dismissal_date !== undefined) {
    if (la.event === 'end') la.dismissalDate = body.dismissal_date;
    else issues.push({ field: 'dismissal_date', message: DISMISSAL_ONLY_ON_END });
  }
  return issues.length > before ? undefined : la;
}

export function validateLiveActivityRequest(input: LiveActivityValidationInput): SendRequest {
  const raw = input.body;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ValidationError(BODY_NOT_OBJECT);
  const start = input.call.event === 'start';
  const shape = start ? checkStartShape(raw) : checkUpdateShape(raw);
  // The send's readers also read subtitle and custom_data, which these bodies do not have: as
  // unknown fields they were never shape-checked, so they are left out here.
  const body = { ...shape.body, subtitle: undefined, custom_data: undefined } as Body & Pick<SendBody, 'subtitle' | 'custom_data'>;
  const issues: FieldIssue[] = [];
  // The path first: it names what the call is about (its parameter, as the field).
  if (input.call.event === 'start' && !ACTIVITY_TYPE.test(input.call.activityType)) issues.push({ field: 'activity_type', message: ACTIVITY_TYPE_RULE });
  if (input.call.event === 'update' && !ACTIVITY_ID.test(input.call.activityId)) issues.push({ field: 'activity_id', message: ACTIVITY_ID_RULE });
  issues.push(...shape.issues);

  const idempotencyKey = readIdempotencyKey(body.idempotency_key, input.idempotencyHeader, issues);
  let target: SendTarget | undefined;
  if (input.call.event === 'start') {
    target = readTarget(body as SendBody, shape.present, input.app.segmentNames, issues);
    const excluding = readExcludedSegments(body.excluded_segments, input.app.segmentNames, issues);
    if (target && excluding) target.excluding = excluding;
    if (target) target.pushToStart = input.call.activityType;
  } else {
    target = { kind: 'activity', activityId: input.call.activityId };
  }
  const texts = readAlert(body, shape.present, start, issues);
  const apns = readApns(body, issues);
  const bookkeeping = readBookkeeping(body as SendBody, issues);
  const liveActivity = readLiveActivity(input, body, issues);

  if (issues.length > 0 || !target || !texts || !liveActivity) throw new ValidationError(issues);

  const request: SendRequest = { appId: input.app.id, target, contents: texts.contents, defaultLanguage: texts.defaultLanguage, apns, liveActivity };
  if (texts.headings) request.headings = texts.headings;
  if (bookkeeping.name !== undefined) request.name = bookkeeping.name;
  if (idempotencyKey !== undefined) request.idempotencyKey = idempotencyKey;
  // Last, on a complete request: the exact payload of every language against Apple's limit.
  if (largestPayloadBytes(request) > APNS_PAYLOAD_LIMIT_BYTES) throw new ValidationError(LIVE_ACTIVITY_TOO_LARGE);
  return request;
}
