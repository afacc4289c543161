// The Android fields of the message forms (issue 39 point 8, issue 40 point 4), by OneSignal's wire
// names, and the platform choice (OneSignal's isIos / isAndroid). Each value goes into the REST
// body as typed, so core/validation/android-options.ts (the send's one rule, which a template's
// content passes too) refuses it with its own sentence, placed under the field it names. Inputs are
// bounded by the rule's own limits: the form never stops short of what the rule accepts.
import { LIMITS } from '../../../core/validation/limits.js';
import { html } from '../html.js';
import { described, errorsFor, options, type FormField } from './form-field.js';
import { textField } from './ios-fields.js';

/** The form's platform choices: '' both (neither flag written), or one platform. */
export const PLATFORM_CHOICES = [['', 'iOS and Android'], ['ios', 'iOS only'], ['android', 'Android only']] as const;

/** The platforms a form chose, by the flags a body would carry. */
export const platformOf = (form: Record<string, string>): '' | 'ios' | 'android' =>
  form.platforms === 'ios' || form.platforms === 'android' ? form.platforms : '';

export const platformField: FormField = {
  area: 'platforms',
  body: ['isIos', 'isAndroid'],
  inputs: /^platforms$/,
  render: (form, ctx) => html`<label>Platforms <select name="platforms" ${described('platforms', ctx)}>${options(PLATFORM_CHOICES, platformOf(form))}</select></label>${errorsFor('platforms', ctx)}`,
  toBody(form, body, ctx) {
    const chosen = platformOf(form);
    // A caller leaves a true flag out; from a template both flags go, so the choice made here
    // replaces the template's (a body's own field takes precedence over the template's).
    if (chosen === 'ios') body.isAndroid = false;
    if (chosen === 'android') body.isIos = false;
    if (ctx.fromTemplate) {
      body.isIos ??= true;
      body.isAndroid ??= true;
    }
  },
  fromBody(content, form) {
    if (content.isIos === false && content.isAndroid !== false) form.platforms = 'android';
    else if (content.isAndroid === false && content.isIos !== false) form.platforms = 'ios';
  },
};

const max = LIMITS.android_text;

/** How the notification shows on Android: the fields a template may carry too. */
export const ANDROID_FIELDS: FormField[] = [
  platformField,
  textField('android_channel_id', 'Notification channel id (empty: the app\'s default channel)', max),
  textField('existing_android_channel_id', 'Or a channel the app created (existing_android_channel_id)', max),
  textField('small_icon', 'Small icon (a drawable of the app, empty: its default)', max),
  textField('android_accent_color', 'Accent colour (AARRGGBB, such as FF0099CC)', 8),
  textField('android_sound', 'Android sound (a sound resource of the app, empty: the channel\'s)', max),
  textField('android_group', 'Group (notifications of one group stack)', max),
];
