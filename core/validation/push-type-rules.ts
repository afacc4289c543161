// What each apns-push-type allows of a send body (issue 29; docs/api.md "Push types"), from the
// one table of Apple's rules (core/payload/push-types.ts): the fields a push that shows nothing
// cannot carry, the priorities Apple takes for the type and, for a type Apple wants delivered now
// or never, the ttl. Each rule is one sentence, written once here for every type.
import type { FieldIssue } from '../errors.js';
import type { ApnsOptions } from '../send-model/request.js';
import { PUSH_TYPES, type PayloadKind } from '../payload/push-types.js';
import type { SendBody } from './send-schema.js';

/** Fields that only an alert shows or plays: a push that shows nothing carries none of them (Apple). */
export const ALERT_ONLY_FIELDS = [
  'contents', 'headings', 'subtitle', 'ios_sound', 'ios_badgeType', 'apns_alert', 'buttons', 'big_picture',
  'ios_attachments', 'ios_interruption_level', 'ios_relevance_score', 'summary_arg', 'summary_arg_count',
  'thread_id', 'ios_category', 'target_content_identifier', 'mutable_content',
] as const;

/**
 * Beyond the alert's fields, what the pushes for an app's own handler cannot carry: a badge count,
 * a tap link (nothing is shown to tap) or content-available (the type already wakes its handler);
 * and a WidgetKit push carries no data either: the system reloads the widget and reads nothing else.
 */
const NOT_CARRIED: Partial<Record<PayloadKind, readonly string[]>> = {
  data: [...ALERT_ONLY_FIELDS, 'ios_badgeCount', 'url', 'app_url', 'content_available'],
  'content-changed': [...ALERT_ONLY_FIELDS, 'ios_badgeCount', 'url', 'app_url', 'content_available', 'data'],
};
const CARRIES: Partial<Record<PayloadKind, string>> = {
  data: "only data, for the app's own handler",
  'content-changed': 'only aps.content-changed (the system reloads the widget or control)',
};

/** Whether the body makes a background push: the override says so, or content_available without contents. */
export function isBackground(body: SendBody): boolean {
  if (body.apns_push_type_override !== undefined) return body.apns_push_type_override === 'background';
  return body.content_available === true && body.contents === undefined;
}

/** The apns-push-type the body makes: its override, else background or alert. */
export function pushTypeOf(body: SendBody): string {
  return body.apns_push_type_override ?? (isBackground(body) ? 'background' : 'alert');
}

/** Whether the push shows no text (background, VoIP, location, …): contents is then not required but refused. */
export function isTextless(body: SendBody): boolean {
  return PUSH_TYPES[pushTypeOf(body)]?.payload !== 'alert';
}

/** OneSignal's 1–10 behind each of Apple's three priorities (applePriority's inverse). */
const BODY_RANGE: Record<string, [number, number]> = { '1': [1, 3], '5': [4, 6], '10': [7, 10] };

/** Apple's rules of the body's push type, each broken one a sentence naming the field. */
export function checkPushType(body: SendBody, present: Set<string>, apns: ApnsOptions, issues: FieldIssue[]): void {
  const type = pushTypeOf(body);
  const rule = PUSH_TYPES[type];
  if (!rule) return;
  if (type === 'background') {
    const alertFields = ALERT_ONLY_FIELDS.filter((field) => present.has(field));
    // Placed with what made the push a background one: the fields it names are each fine alone.
    if (alertFields.length > 0) {
      issues.push({
        field: body.apns_push_type_override === 'background' ? 'apns_push_type_override' : 'content_available',
        message: `A background push (content_available without contents, or apns_push_type_override background) shows nothing, so it cannot carry ${alertFields.join(', ')}. Remove them, or send an alert.`,
      });
    }
  }
  const notCarried = rule.payload && NOT_CARRIED[rule.payload]?.filter((field) => present.has(field));
  if (notCarried?.length) {
    issues.push({
      field: 'apns_push_type_override',
      message: `A ${type} push (apns_push_type_override ${type}) carries ${CARRIES[rule.payload!]}, so it cannot carry ${notCarried.join(', ')}. Remove them, or send an alert.`,
    });
  }
  if (rule.priorities && apns.priority !== undefined && !rule.priorities.includes(String(apns.priority) as '1' | '5' | '10')) {
    const ranges = rule.priorities.map((p) => BODY_RANGE[p]);
    const from = Math.min(...ranges.map((r) => r[0]));
    const to = Math.max(...ranges.map((r) => r[1]));
    issues.push({
      field: 'priority',
      message: `priority of a ${type} push must be from ${from} to ${to} (Apple delivers ${type} pushes at priority ${rule.priorities.join(' or ')}), or absent.`,
    });
  }
  if (rule.expiresAtOnce && apns.ttlSeconds !== undefined && apns.ttlSeconds !== 0) {
    issues.push({ field: 'ttl', message: `ttl of a ${type} push must be 0 or absent: Apple delivers ${type} pushes now or never (apns-expiration 0).` });
  }
}

/** Apple takes some types (location) over token-based connections only: refused for an app whose credentials are a certificate. */
export function checkCredentialsFor(body: SendBody, credentialsKind: 'token' | 'certificate' | undefined, issues: FieldIssue[]): void {
  const type = pushTypeOf(body);
  if (credentialsKind !== 'certificate' || !PUSH_TYPES[type]?.tokenAuthOnly) return;
  issues.push({
    field: 'apns_push_type_override',
    message: `A ${type} push needs the app's push key (.p8): Apple takes ${type} pushes over token-based connections only, and this app's credentials are a certificate.`,
  });
}
