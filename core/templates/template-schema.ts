// A template's body (createTemplate, updateTemplate): its name, and the fields of a send's content
// it may carry (TEMPLATE_FIELDS; docs/api.md "Templates"). The content is checked by the send's own
// rules (validateSendRequest: the send body's one schema and its rule stage, payload size
// included), as the body of a send to one install would be, so a template that is accepted here is
// one a send can carry; the sentences are the send's, naming the field. Android's fields and
// OneSignal's platform flags (isIos / isAndroid) are carried as OneSignal's templates carry them
// ("channel/platform flags"): checked by core/validation/android-options.ts, the send's one rule.
import { ValidationError, type FieldIssue } from '../errors.js';
import { SEND_BODY_FIELDS, type SendBody } from '../validation/send-body-schema.js';
import { validateSendRequest, type SendValidationInput } from '../validation/validate-send.js';
import { BODY_NOT_OBJECT } from '../validation/send-schema.js';
import { codePointLength } from '../validation/text.js';
import { TEMPLATE_LIMITS } from './template-limits.js';

/**
 * What a template may carry: the message and how it shows on the device (iOS and Android), and
 * which platforms it is for (isIos / isAndroid: OneSignal's templates carry their platform flags;
 * a send naming the template may give its own, which take precedence as every field's do). Not the
 * audience, the schedule or the delivery options (ttl, priority, collapse_id, background, push
 * type), which are the send's, nor bookkeeping (name, custom_data, idempotency).
 */
export const TEMPLATE_FIELDS = [
  'contents',
  'headings',
  'subtitle',
  'url',
  'app_url',
  'big_picture',
  'ios_attachments',
  'data',
  'buttons',
  'ios_sound',
  'ios_category',
  'thread_id',
  'summary_arg',
  'summary_arg_count',
  'ios_badgeType',
  'ios_badgeCount',
  'ios_interruption_level',
  'ios_relevance_score',
  'target_content_identifier',
  'mutable_content',
  'apns_alert',
  'android_channel_id',
  'existing_android_channel_id',
  'small_icon',
  'android_accent_color',
  'android_sound',
  'android_group',
  'isIos',
  'isAndroid',
] as const satisfies readonly (keyof SendBody)[];

export type TemplateContent = Partial<Record<(typeof TEMPLATE_FIELDS)[number], unknown>>;

/** OneSignal's template channels Herald does not serve, by their wire names (the client's): a clear 422 rather than a push template. */
const OTHER_CHANNELS = ['isEmail', 'isSMS', 'is_email', 'is_sms'] as const;

/** Any syntactically valid Subscription ID: the rules need an audience, a template has none. */
const ONE_INSTALL = '00000000-0000-4000-8000-000000000000';

export interface TemplateBody {
  name?: string;
  content: TemplateContent;
}

/**
 * Reads a create or update body. `stored`: an update's current content, which the given fields
 * replace one by one (a field given as null is removed); the result is checked whole.
 */
export function readTemplateBody(
  kind: 'create' | 'update',
  raw: unknown,
  rules: Pick<SendValidationInput, 'app' | 'now'>,
  stored: TemplateContent = {},
): TemplateBody {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ValidationError(BODY_NOT_OBJECT);
  const body = raw as Record<string, unknown>;
  const issues: FieldIssue[] = [];
  const name = readName(kind, body.name, issues);
  for (const field of OTHER_CHANNELS) {
    if (body[field] === true) issues.push({ field, message: `${field} is not served: Herald keeps push templates only.` });
  }
  const carried = new Set<string>(TEMPLATE_FIELDS);
  for (const field of SEND_BODY_FIELDS) {
    if (field === 'app_id' || field === 'name' || carried.has(field) || body[field] === undefined || body[field] === null) continue;
    issues.push({ field, message: `${field} is not a field of a template: a template holds a message's content, a send its audience and delivery (docs/api.md "Templates").` });
  }
  const content: TemplateContent = { ...stored };
  for (const field of TEMPLATE_FIELDS) {
    if (body[field] === null) delete content[field];
    else if (body[field] !== undefined) content[field] = body[field];
  }
  if (issues.length === 0) {
    try {
      validateSendRequest({ ...rules, body: { app_id: rules.app.id, ...content, include_subscription_ids: [ONE_INSTALL] } });
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      issues.push(...error.issues);
    }
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return name === undefined ? { content } : { name, content };
}

function readName(kind: 'create' | 'update', name: unknown, issues: FieldIssue[]): string | undefined {
  if (name === undefined || name === null) {
    if (kind === 'create') issues.push({ field: 'name', message: 'name is required: the template\'s name.' });
    return undefined;
  }
  if (typeof name !== 'string' || name.trim() === '') {
    issues.push({ field: 'name', message: 'name must be text of at least one character.' });
    return undefined;
  }
  if (codePointLength(name) > TEMPLATE_LIMITS.name) {
    issues.push({ field: 'name', message: `name is longer than ${TEMPLATE_LIMITS.name} characters.` });
    return undefined;
  }
  return name;
}
