// A template's body (createTemplate, updateTemplate): its name, and the fields of a send's content
// it may carry (TEMPLATE_FIELDS; docs/api.md "Templates"). Its shape (the name, the channels Herald
// does not serve, a send's fields a template does not carry) is one schema checked by the one
// checker (core/validation/checker.ts), which the REST calls declare (api/routes/templates.ts) and
// the dashboard reads its form through (readTemplateBody). The content is checked by the send's own
// rules (validateSendRequest: the send body's one schema and its rule stage, payload size
// included), as the body of a send to one install would be, so a template that is accepted here is
// one a send can carry; the sentences are the send's, naming the field. Android's fields and
// OneSignal's platform flags (isIos / isAndroid) are carried as OneSignal's templates carry them
// ("channel/platform flags"): checked by core/validation/android-options.ts, the send's one rule.
import Type from 'typebox';
import { checked, type Sentences } from '../validation/checker.js';
import { SEND_BODY_FIELDS, type SendBody } from '../validation/send-body-schema.js';
import { validateSendRequest, type SendValidationInput } from '../validation/validate-send.js';
import { APP_ID_REQUIRED } from '../validation/send-schema.js';
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

export type TemplateField = (typeof TEMPLATE_FIELDS)[number];
export type TemplateContent = Partial<Record<TemplateField, unknown>>;

/** OneSignal's template channels Herald does not serve, by their wire names (the client's): a clear 422 rather than a push template. */
const OTHER_CHANNELS = ['isEmail', 'isSMS', 'is_email', 'is_sms'] as const;

/** A send's fields a template does not carry (its audience, schedule, delivery, bookkeeping): given, a 422 naming each. */
const NOT_CARRIED = SEND_BODY_FIELDS.filter((field) => field !== 'app_id' && field !== 'name' && !(TEMPLATE_FIELDS as readonly string[]).includes(field));

/** Any syntactically valid Subscription ID: the rules need an audience, a template has none. */
const ONE_INSTALL = '00000000-0000-4000-8000-000000000000';

/** A body as checked: its name, its content's fields (the send's rules check them after), anything else left alone. */
export type TemplateBodyIn = TemplateContent & { name?: string | null; app_id?: unknown } & Record<string, unknown>;

/** createTemplate's body: it names its app and the template. */
export type CreateTemplateBodyIn = TemplateBodyIn & { app_id: string; name: string };

const NAME_RULES = { type: ['string', 'null'], minLength: 1, maxLength: TEMPLATE_LIMITS.name, pattern: '\\S' };

/**
 * The shape of a template body: `kind` create requires a name, `withApp` (the REST call) an app_id.
 * Null is as absent for every field (an update's null removes a field), so a create's null name is
 * refused as missing (`not`: its sentence is the required one).
 */
function templateBodySchema(kind: 'create' | 'update', withApp: boolean): Record<string, unknown> {
  const properties: Record<string, unknown> = {
    app_id: withApp ? { type: 'string' } : {},
    name: kind === 'create' ? { ...NAME_RULES, not: { type: 'null' } } : NAME_RULES,
    ...Object.fromEntries(OTHER_CHANNELS.map((field) => [field, { not: { const: true } }])),
    ...Object.fromEntries(TEMPLATE_FIELDS.map((field) => [field, {}])),
    ...Object.fromEntries(NOT_CARRIED.map((field) => [field, { type: 'null' }])),
  };
  const required = [...(withApp ? ['app_id'] : []), ...(kind === 'create' ? ['name'] : [])];
  return { type: 'object', required, properties };
}

/** createTemplate's body (the REST call: with its app_id). */
export const CREATE_TEMPLATE_BODY = Type.Unsafe<CreateTemplateBodyIn>(templateBodySchema('create', true));
/** updateTemplate's body (its app is named by ?app_id=). */
export const UPDATE_TEMPLATE_BODY = Type.Unsafe<TemplateBodyIn>(templateBodySchema('update', false));
/** The dashboard's new template: its app is the session's. */
const CREATE_IN_APP = Type.Unsafe<TemplateBodyIn & { name: string }>(templateBodySchema('create', false));

const NAME_REQUIRED = "name is required: the template's name.";
const NOT_A_TEMPLATE_FIELD = (field: string) =>
  `${field} is not a field of a template: a template holds a message's content, a send its audience and delivery (docs/api.md "Templates").`;

/** The template calls' own sentences; the content's are the send's. */
export const TEMPLATE_SENTENCES: Sentences = {
  app_id: APP_ID_REQUIRED,
  name: 'name must be text of at least one character.',
  'name:maxLength': `name is longer than ${TEMPLATE_LIMITS.name} characters.`,
  'name:required': NAME_REQUIRED,
  'name:not': NAME_REQUIRED,
  ...Object.fromEntries(OTHER_CHANNELS.map((field) => [field, `${field} is not served: Herald keeps push templates only.`])),
  ...Object.fromEntries(NOT_CARRIED.map((field) => [field, NOT_A_TEMPLATE_FIELD])),
};

export interface TemplateBody {
  name?: string;
  content: TemplateContent;
}

/**
 * A checked body's template: `stored` is an update's current content, which the given fields
 * replace one by one (a field given as null is removed); the result is checked whole by the send's
 * rules, with the send's sentences.
 */
export function templateOf(body: TemplateBodyIn, rules: Pick<SendValidationInput, 'app' | 'now'>, stored: TemplateContent = {}): TemplateBody {
  const content: TemplateContent = { ...stored };
  for (const field of TEMPLATE_FIELDS) {
    if (body[field] === null) delete content[field];
    else if (body[field] !== undefined) content[field] = body[field];
  }
  validateSendRequest({ ...rules, body: { app_id: rules.app.id, ...content, include_subscription_ids: [ONE_INSTALL] } });
  return typeof body.name === 'string' ? { name: body.name, content } : { content };
}

/** An unchecked body (the dashboard's form, its app the session's) checked and read as the REST calls read theirs. */
export function readTemplateBody(kind: 'create' | 'update', raw: unknown, rules: Pick<SendValidationInput, 'app' | 'now'>, stored: TemplateContent = {}): TemplateBody {
  return templateOf(checked(kind === 'create' ? CREATE_IN_APP : UPDATE_TEMPLATE_BODY, raw, TEMPLATE_SENTENCES), rules, stored);
}

