// Compose (issue 40 point 4): the form, drawn from its sections of field rows (../form/forms.ts),
// and the review step, the one confirmation before a send: everything that goes out (the name, who
// and how many, when, the throttle, the whole message as the report shows it, the preview) above
// the button that sends. The body goes through the same validateSendRequest and acceptSend as
// POST /api/v1/notifications, so the rules and their sentences are the REST call's; each sentence
// is shown next to the form area of the body field it names (its `field`, never its wording). The
// previews (iOS and Android) are ./previews.ts and ./android-preview.ts.
import type { FieldIssue } from '../../../core/errors.js';
import type { SendRequest } from '../../../core/send-model/request.js';
import { html, type Html } from '../html.js';
import type { DashboardSession } from '../session.js';
import { COMPOSE_SECTIONS, errorsByArea, formSections, keptFields } from '../form/forms.js';
import type { FormValues } from '../form/form-field.js';
import { errorList } from '../errors.js';
import { previews } from './previews.js';
import { count } from './format.js';
import { messageDetails } from './message.js';

export type ComposeForm = FormValues;

/** A template compose may start from (the chooser), and the one it started from. */
export interface ComposeTemplates {
  choices?: Array<{ id: string; name: string }>;
  /** More templates than the chooser lists: a link to the templates page. */
  more?: boolean;
  chosen?: { id: string; name: string };
}

/** Start from a template: a GET form of its own (forms do not nest), which reloads compose filled from it. */
function templatePicker(t: ComposeTemplates): Html {
  if (!t.choices?.length) return html``;
  return html`<form method="get" action="/dashboard/compose" class="template-pick">
    <label>Start from a template <select name="template"><option value="">—</option>${t.choices.map((c) => html`<option value="${c.id}" ${t.chosen?.id === c.id ? html`selected` : ''}>${c.name}</option>`)}</select></label>
    <button type="submit" class="secondary-button">Use this template</button>
    ${t.more ? html`<a href="/dashboard/templates">All templates</a>` : ''}
  </form>`;
}

/** Which template the form started from, and how its fields go out. */
function templateNote(form: FormValues, chosen: ComposeTemplates['chosen']): Html {
  if (!form.template_id) return html``;
  return html`<input type="hidden" name="template_id" value="${form.template_id}">
    <p class="note" id="template-note">From the template ${chosen ? html`<a href="/dashboard/templates/${chosen.id}">${chosen.name}</a>` : form.template_id}.
    The texts are replaced whole; any other field emptied here keeps the template's value, as a REST send naming it does.
    <a href="/dashboard/compose">Start without a template</a></p>`;
}

export function composePage(session: DashboardSession, appName: string, segments: string[], form: FormValues, issues: FieldIssue[] = [], templates: ComposeTemplates = {}): Html {
  const errors = errorsByArea(COMPOSE_SECTIONS, issues);
  return html`<h1>New message</h1>
  ${templatePicker(templates)}
  <div class="compose-layout">
  <form method="post" action="/dashboard/compose" class="compose" novalidate>
    <input type="hidden" name="_csrf" value="${session.csrf}">
    ${errorList('form', errors.get('form'))}
    ${templateNote(form, templates.chosen)}${errorList('template', errors.get('template'))}
    ${formSections(COMPOSE_SECTIONS, form, { errors, segments })}
    <button type="submit" name="step" value="review">Review</button>
  </form>
  ${previews(appName, form)}
  </div>`;
}

export interface Review {
  /** The send as its rules read it, the template's fields filled in: what goes out. */
  request: SendRequest;
  /** The template it names (`name` null: not found, the Send step's 422 follows) and the version read (its updated_at). */
  template?: { id: string; name: string | null; version?: string };
  /** Why Review is shown again instead of sending (the template changed since). */
  notice?: string;
  estimate: number;
  audience: string;
  when: string;
  /** A random UUID this review's Send carries: its idempotency key, so a double click sends once. */
  sendKey: string;
}

/**
 * The one confirmation before a send: everything that goes out, above the button that sends, which
 * names how many devices it reaches. Edit goes back to the form with every value.
 */
export function reviewPage(session: DashboardSession, appName: string, form: FormValues, review: Review): Html {
  const devices = `${count(review.estimate)} device${review.estimate === 1 ? '' : 's'}`;
  return html`<h1>Review the message</h1>
  <div class="compose-layout">
  <form method="post" action="/dashboard/compose" class="compose review">
    <input type="hidden" name="_csrf" value="${session.csrf}">
    ${keptFields(COMPOSE_SECTIONS, form).map(([k, val]) => html`<input type="hidden" name="${k}" value="${val}">`)}
    <input type="hidden" name="send_key" value="${review.sendKey}">
    ${review.template?.version ? html`<input type="hidden" name="template_seen" value="${review.template.version}">` : ''}
    ${review.notice ? html`<p class="field-errors" role="alert" id="review-notice">${review.notice}</p>` : ''}
    <dl class="header" id="review-summary">
      <div><dt>Name</dt><dd data-field="Name">${review.request.name ?? '—'}</dd></div>
      <div><dt>Audience</dt><dd data-field="Audience">${review.audience}</dd></div>
      <div><dt>Estimate</dt><dd id="estimate">${devices}</dd></div>
      <div><dt>When</dt><dd id="when">${review.when}</dd></div>
      <div><dt>Throttle</dt><dd data-field="Throttle">${review.request.throttleRatePerMinute ? `${count(review.request.throttleRatePerMinute)} per minute` : 'none'}</dd></div>
    </dl>
    <section class="review-message" aria-label="The message">${messageDetails({ ...review.request, template: review.template && { id: review.template.id, name: review.template.name } })}</section>
    <div class="confirm">
      <button type="submit" name="step" value="send">Send to ${devices}</button>
      <button type="submit" name="step" value="edit" class="secondary-button">Edit</button>
    </div>
  </form>
  ${previews(appName, form)}
  </div>`;
}
