// The whole message as the dashboard shows it (issue 30 point 6), one renderer for a send's report,
// a template's page and compose's review step: every language's title, subtitle and text (not
// only the default), the link, the image, the data, the button, the template it came from, and
// every iOS field that is set, the platforms and the Android fields (./android-details.ts). It renders a validated request (MessageFields), so what it shows is
// what the payload builder reads; every value goes through html`` (escaped).
import type { MessageFields, SendMessage } from '../../../core/dashboard-reads/send-message.js';
import { html, type Html } from '../html.js';
import { breakableUrl, count } from './format.js';
import { languagesOf } from '../form/languages.js';
import { messagePushType } from '../../../core/payload/apns-headers.js';
import { PUSH_TYPES } from '../../../core/payload/push-types.js';
import { androidFields, platformsOf } from './android-details.js';

/** The iOS fields: the six a team sets most always (with their defaults), the others when set. */
export function iosFields(m: MessageFields): [string, string][] {
  const a = m.apns;
  const badge = !a.badgeType || a.badgeType === 'None' ? 'unchanged' : a.badgeType === 'SetTo' ? `set to ${a.badgeCount ?? 0}` : `increase by ${a.badgeCount ?? 0}`;
  const ttl = a.ttlSeconds === undefined ? '3 days (default)' : a.ttlSeconds === 0 ? '0 s (now or never)' : `${count(a.ttlSeconds)} s`;
  const subtitle = m.subtitle?.en ?? Object.values(m.subtitle ?? {})[0];
  // What the push carries, by the payload builder's own rule (core/payload/push-types.ts): a
  // background push or a VoIP, location, … push plays no sound and shows no alert.
  const type = messagePushType(m);
  const kind = PUSH_TYPES[type]?.payload;
  const background = kind === 'background';
  const ownToken = kind === 'data' || kind === 'content-changed';
  const set: [string, string | number | boolean | undefined][] = [
    ['Category', a.category],
    ['Thread id', a.threadId],
    ['Summary argument', a.summaryArg],
    ['Summary argument count', a.summaryArgCount],
    ['Relevance score', a.relevanceScore],
    ['Target content id', a.targetContentId],
    ['Mutable content', a.mutableContent === undefined ? undefined : a.mutableContent ? 'yes' : 'no'],
    ['Collapse id', a.collapseId],
    ['Priority', a.priority],
    ['Push type', a.pushTypeOverride],
    ['Alert keys', a.alertExtras && JSON.stringify(a.alertExtras)],
  ];
  return [
    ['Subtitle', subtitle ?? '—'],
    ['Sound', background || ownToken ? `none (${type} push)` : (a.sound ?? 'default')],
    ['Badge', ownToken ? `none (${type} push)` : badge],
    ['Silent push', background ? 'yes (background, content-available)' : ownToken ? `no alert (${type} push, to the ${type} token)` : a.contentAvailable ? 'content-available with an alert' : 'no'],
    ['Time to live', ttl],
    ['Interruption level', ownToken ? `none (${type} push)` : a.interruptionLevel ? a.interruptionLevel.replace('_', ' ') : 'active (default)'],
    ...set.filter((f): f is [string, string | number] => f[1] !== undefined).map(([k, v]): [string, string] => [k, String(v)]),
  ];
}

/** A message narrowed to Android: no iOS field goes out. */
const androidOnly = (m: MessageFields) => m.platforms?.length === 1 && m.platforms[0] === 'android';

/** The template line: its name linking to its page, or its id when it has been deleted since. */
function templateLine(t: NonNullable<SendMessage['template']>): Html {
  return t.name === null
    ? html`<span class="note">${t.id} (deleted since)</span>`
    : html`<a href="/dashboard/templates/${t.id}">${t.name}</a>`;
}

/**
 * The message's sections; a page shows one message, so the ids (#languages, #data, #ios) are
 * unique (#android too). `ofTemplate`: a template's own page, which names no template.
 */
export function messageDetails(m: SendMessage, ofTemplate = false): Html {
  const langs = languagesOf(m);
  // By key: the stored order is jsonb's (shortest key first), which means nothing to a reader.
  const data = Object.entries(m.data ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return html`<h2 id="message-title">Message</h2>
    ${langs.length
      ? html`<table class="languages" id="languages" aria-labelledby="message-title">
      <thead><tr><th scope="col">Language</th><th scope="col">Title</th><th scope="col">Subtitle</th><th scope="col">Text</th></tr></thead>
      <tbody>${langs.map((l) => html`<tr data-lang="${l}"><th scope="row">${l}</th><td class="heading">${m.headings?.[l] ?? ''}</td><td class="subtitle">${m.subtitle?.[l] ?? ''}</td><td class="content">${m.contents[l] ?? ''}</td></tr>`)}</tbody>
    </table>`
      : html`<p class="note" id="languages">No alert text (a background push, or a Live Activity's content state only).</p>`}
    <dl class="header" id="message-fields">
      <div><dt>Link</dt><dd data-field="Link">${m.url ? breakableUrl(m.url) : '—'}</dd></div>
      ${m.imageUrl ? html`<div><dt>Image</dt><dd data-field="Image">${breakableUrl(m.imageUrl)}</dd></div>` : ''}
      <div><dt>Platforms</dt><dd data-field="Platforms">${platformsOf(m)}</dd></div>
      <div><dt>Button</dt><dd data-field="Button">${m.button ? html`${m.button.text} <span class="note">(id ${m.button.id})</span>` : '—'}</dd></div>
      ${ofTemplate ? '' : html`<div><dt>Template</dt><dd data-field="Template">${m.template ? templateLine(m.template) : '—'}</dd></div>`}
    </dl>
    <h3 id="data-title">Data</h3>
    ${data.length
      ? html`<table class="data" id="data" aria-labelledby="data-title"><thead><tr><th scope="col">Key</th><th scope="col">Value</th></tr></thead>
      <tbody>${data.map(([k, v]) => html`<tr><th scope="row">${k}</th><td>${v}</td></tr>`)}</tbody></table>`
      : html`<p class="note" id="data">None.</p>`}
    <h2 id="ios-title">On iOS</h2>
    <dl class="header" id="ios" aria-labelledby="ios-title">
      ${(androidOnly(m) ? [['Sent to iOS', 'no: this message is for Android only']] : iosFields(m)).map(([k, v]) => html`<div><dt>${k}</dt><dd data-field="${k}">${v}</dd></div>`)}
    </dl>
    <h2 id="android-title">On Android</h2>
    <dl class="header" id="android" aria-labelledby="android-title">
      ${androidFields(m).map(([k, v]) => html`<div><dt>${k}</dt><dd data-field="${k}">${v}</dd></div>`)}
    </dl>`;
}
