// The iOS fields of the message forms, by OneSignal's wire names (the REST body's): how the
// notification shows (sound, badge, interruption level, category, thread, summary, relevance,
// target content id, mutable content, the apns_alert keys), which a template may carry; and how
// it is delivered (silent push, time to live), which only a send carries. Numbers that are not
// numbers are passed on as typed, so the REST rule's sentence names them.
import { LIMITS } from '../../../core/validation/limits.js';
import { APNS_ALERT_KEYS } from '../../../core/validation/send-body-schema.js';
import { html } from '../html.js';
import { copyText, decimal, described, errorsFor, integer, jsonField, options, textArea, type FormField } from './form-field.js';

const BADGES = [['None', 'Leave the badge as it is'], ['SetTo', 'Set to'], ['Increase', 'Increase by']] as const;
const LEVELS = [['', 'Active (default)'], ['passive', 'Passive'], ['active', 'Active'], ['time_sensitive', 'Time sensitive'], ['critical', 'Critical']] as const;

/** A one-line text input of a body field of the same name, bounded by its limit. */
export function textField(field: string, label: string, maxlength: number, convert: (s: string) => unknown = (s) => s, inputmode?: 'numeric' | 'decimal'): FormField {
  return {
    area: field,
    body: [field],
    inputs: new RegExp(`^${field}$`),
    render: (form, ctx) => html`<label>${label} <input name="${field}" value="${form[field] ?? ''}" maxlength="${maxlength}" ${inputmode ? html`inputmode="${inputmode}"` : ''} ${described(field, ctx)}></label>${errorsFor(field, ctx)}`,
    toBody(form, body) {
      if (form[field]) body[field] = convert(form[field]);
    },
    fromBody(content, form) {
      const v = content[field];
      if (typeof v === 'string' || typeof v === 'number') form[field] = String(v);
    },
  };
}

/** A checkbox for a body field that is true or absent. */
function flagField(field: string, label: string): FormField {
  return {
    area: field,
    body: [field],
    inputs: new RegExp(`^${field}$`),
    render: (form, ctx) => html`<label class="check"><input type="checkbox" name="${field}" ${form[field] === 'on' ? html`checked` : ''} ${described(field, ctx)}> ${label}</label>${errorsFor(field, ctx)}`,
    toBody(form, body) {
      if (form[field] === 'on') body[field] = true;
    },
    fromBody(content, form) {
      if (content[field] === true) form[field] = 'on';
    },
  };
}

export const soundField = textField('ios_sound', 'Sound (a file of the app, empty: default)', LIMITS.ios_sound);

export const badgeField: FormField = {
  area: 'badge',
  body: ['ios_badgeType', 'ios_badgeCount'],
  inputs: /^ios_badge(Type|Count)$/,
  render: (form, ctx) => html`<div class="tag-row" ${described('badge', ctx)}>
      <label>Badge <select name="ios_badgeType">${options(BADGES, form.ios_badgeType ?? 'None')}</select></label>
      <label>Badge count <input name="ios_badgeCount" inputmode="numeric" value="${form.ios_badgeCount ?? ''}" maxlength="${String(LIMITS.badge_min).length}" size="6"></label>
    </div>${errorsFor('badge', ctx)}`,
  toBody(form, body) {
    if (!form.ios_badgeType || form.ios_badgeType === 'None') return;
    body.ios_badgeType = form.ios_badgeType;
    if (form.ios_badgeCount) body.ios_badgeCount = integer(form.ios_badgeCount);
  },
  fromBody(content, form) {
    if (typeof content.ios_badgeType === 'string') form.ios_badgeType = content.ios_badgeType;
    if (typeof content.ios_badgeCount === 'number' || typeof content.ios_badgeCount === 'string') form.ios_badgeCount = String(content.ios_badgeCount);
  },
};

export const interruptionField: FormField = {
  area: 'interruption',
  body: ['ios_interruption_level'],
  inputs: /^ios_interruption_level$/,
  render: (form, ctx) => html`<label>Interruption level <select name="ios_interruption_level" ${described('interruption', ctx)}>${options(LEVELS, form.ios_interruption_level ?? '')}</select></label>${errorsFor('interruption', ctx)}`,
  toBody: (form, body) => copyText(body, 'ios_interruption_level', form.ios_interruption_level),
  fromBody(content, form) {
    if (typeof content.ios_interruption_level === 'string') form.ios_interruption_level = content.ios_interruption_level;
  },
};

const ALERT_EXAMPLE = '{"loc-key": "GAME_PLAY_REQUEST_FORMAT", "loc-args": ["Jenna", "Frank"]}';

export const apnsAlertField: FormField = {
  area: 'apns_alert',
  body: ['apns_alert'],
  inputs: /^apns_alert$/,
  render: (form, ctx) => html`<label>Alert keys (JSON: ${APNS_ALERT_KEYS.join(', ')}) ${textArea('apns_alert', form.apns_alert ?? '', 8_192, 2, html`class="mono" placeholder="${ALERT_EXAMPLE}" ${described('apns_alert', ctx)}`)}</label>${errorsFor('apns_alert', ctx)}`,
  toBody(form, body) {
    if (form.apns_alert?.trim()) body.apns_alert = jsonField('apns_alert', form.apns_alert, ALERT_EXAMPLE);
  },
  fromBody(content, form) {
    if (content.apns_alert !== undefined) form.apns_alert = JSON.stringify(content.apns_alert);
  },
};

/** How the notification shows on iOS: the fields a template may carry, the seldom ones folded. */
export const IOS_SHOWN_FIELDS = [soundField, badgeField, interruptionField];
export const IOS_MORE_FIELDS = [
  textField('ios_category', 'Category (the app\'s actions)', LIMITS.ios_category),
  textField('thread_id', 'Thread id (groups notifications)', LIMITS.thread_id),
  textField('summary_arg', 'Summary argument', LIMITS.summary_arg),
  textField('summary_arg_count', 'Summary argument count', String(2_147_483_647).length, integer, 'numeric'),
  textField('ios_relevance_score', 'Relevance score (0 to 1)', 12, decimal, 'decimal'),
  textField('target_content_identifier', 'Target content id', LIMITS.target_content_identifier),
  flagField('mutable_content', 'Mutable content (the app\'s notification extension may change it)'),
  apnsAlertField,
];

/** How a send is delivered on iOS: not a template's (a template holds the message, a send its delivery). */
export const IOS_DELIVERY_FIELDS = [
  flagField('content_available', 'Silent push (wakes the app in the background, shows nothing)'),
];

/**
 * How long a send may wait for a device, on both platforms (apns-expiration, FCM's android.ttl):
 * in the Delivery section. Absent: OneSignal's 3 days on both (core/payload/apns-headers.ts
 * DEFAULT_TTL_SECONDS, which fcm-message.ts writes too).
 */
export const ttlField = textField('ttl', 'Time to live (seconds; empty: 3 days; 0: now or never)', String(LIMITS.ttl_seconds).length, integer, 'numeric');
