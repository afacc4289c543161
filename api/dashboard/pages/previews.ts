// The notification previews of compose, the template editor and a template's page: iOS's lock
// screen banner and, beside it, Android's notification card (./android-preview.ts); each says so
// when the form's platform choice leaves its platform out. Drawn by the server (the review step,
// a page without JavaScript) and kept live by dashboard.js.
import { html, type Html } from '../html.js';
import { platformOf } from '../form/android-fields.js';
import type { FormValues } from '../form/form-field.js';
import { langRows } from '../form/message-fields.js';
import { androidPreview } from './android-preview.js';

/** The notification as iOS shows it on the lock screen: app, time, image, title, subtitle and (cut) text. */
export function iosPreview(appName: string, form: FormValues): Html {
  const silent = form.content_available === 'on';
  const first = langRows(form).find((i) => form[`lang_${i}`]) ?? 0;
  return html`<figure class="ios-preview" id="preview" aria-labelledby="preview-caption">
    <figcaption id="preview-caption">Preview: the notification as iOS shows it</figcaption>
    <p class="note platform-note" data-preview="left-out" ${platformOf(form) === 'android' ? '' : html`hidden`}>Not sent to iOS devices: this message is for Android only.</p>
    <div class="phone">
      <div class="banner" ${silent ? html`hidden` : ''}>
        <div class="banner-head"><img src="/dashboard/assets/favicon.svg" alt="" width="20" height="20"><span class="app">${appName}</span><span class="time">now</span></div>
        <p class="title" data-preview="heading">${form[`heading_${first}`] ?? ''}</p>
        <p class="subtitle" data-preview="subtitle">${form[`subtitle_${first}`] ?? ''}</p>
        <p class="body" data-preview="content">${form[`content_${first}`] ?? ''}</p>
        <p class="image-note" data-preview="image" ${form.image ? '' : html`hidden`}>With an image (shown by the app's notification extension)</p>
        <p class="button-preview" data-preview="button_text" ${form.button_text ? '' : html`hidden`}>${form.button_text ?? ''}</p>
      </div>
      <p class="silent-note" ${silent ? '' : html`hidden`}>A silent push shows nothing: iOS wakes the app in the background.</p>
    </div>
  </figure>`;
}

/** Both previews, side by side where the page is wide enough. */
export function previews(appName: string, form: FormValues): Html {
  return html`<div class="previews">${iosPreview(appName, form)}${androidPreview(appName, form)}</div>`;
}
