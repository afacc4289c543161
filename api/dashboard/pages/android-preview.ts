// The notification as a stock Android app shows it (issue 39 point 8), beside the iOS preview: a
// Material notification card whose small icon is tinted with the accent colour (FCM's #RRGGBB of
// android_accent_color, by the payload builder's own fcmColor), the app's name, the small icon's
// name, the title and text of the first language, the big picture and the button. The page's CSP
// allows no inline style and no image from elsewhere, so the tint is an SVG fill (a presentation
// attribute) and the big picture is named, not loaded. dashboard.js keeps it live as the form changes.
import { fcmColor } from '../../../core/payload/fcm-message.js';
import { ACCENT_COLOR_PATTERN } from '../../../core/validation/send-body-schema.js';
import { html, type Html } from '../html.js';
import { platformOf } from '../form/android-fields.js';
import type { FormValues } from '../form/form-field.js';
import { langRows } from '../form/message-fields.js';

/** Android's grey for a notification without an accent colour. */
export const NO_ACCENT = '#5F6368';

const ACCENT = new RegExp(ACCENT_COLOR_PATTERN);

/** The colour the card tints with: the typed accent colour when it is one the rule takes, else Android's grey. */
export const accentOf = (typed: string | undefined) => (typed && ACCENT.test(typed) ? fcmColor(typed)! : NO_ACCENT);

export function androidPreview(appName: string, form: FormValues): Html {
  const rows = langRows(form);
  // Data-only on Android only without text (the payload builder's isBackground), unlike iOS's silent push.
  const silent = form.content_available === 'on' && !rows.some((i) => form[`content_${i}`]);
  const first = rows.find((i) => form[`lang_${i}`]) ?? 0;
  const accent = accentOf(form.android_accent_color);
  return html`<figure class="android-preview" id="android-preview" aria-labelledby="android-preview-caption">
    <figcaption id="android-preview-caption">Preview: the notification as Android shows it</figcaption>
    <p class="note platform-note" data-preview="left-out" ${platformOf(form) === 'ios' ? '' : html`hidden`}>Not sent to Android devices: this message is for iOS only.</p>
    <div class="android-phone">
      <div class="android-card" ${silent ? html`hidden` : ''}>
        <div class="android-head">
          <svg class="small-icon" width="18" height="18" viewBox="0 0 18 18" aria-hidden="true"><circle cx="9" cy="9" r="9" fill="${accent}" data-preview="accent"></circle><path d="M9 4.5a3 3 0 0 0-3 3v2.5l-1.2 1.5h8.4L12 10V7.5a3 3 0 0 0-3-3zm-1.2 8h2.4a1.2 1.2 0 0 1-2.4 0z" fill="#fff"></path></svg>
          <span class="app">${appName}</span>
          <span class="icon-name" data-preview="small_icon">${form.small_icon || 'default icon'}</span>
          <span class="time">now</span>
        </div>
        <p class="title" data-preview="heading">${form[`heading_${first}`] ?? ''}</p>
        <p class="body" data-preview="content">${form[`content_${first}`] ?? ''}</p>
        <p class="big-picture" data-preview="image" ${form.image ? '' : html`hidden`}>Big picture: <span data-preview="image_url">${form.image ?? ''}</span></p>
        <p class="android-button" data-preview="button_text" ${form.button_text ? '' : html`hidden`}>${form.button_text ?? ''}</p>
      </div>
      <p class="silent-note" ${silent ? '' : html`hidden`}>A background send is a data-only message on Android: it shows nothing.</p>
    </div>
  </figure>`;
}
