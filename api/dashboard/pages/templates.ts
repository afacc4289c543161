// The templates pages (issue 30 point 6): the app's templates a page at a time (oldest first, as
// viewTemplates lists them), and one template's page showing its whole message (message.ts) with
// "New message from this template" for a send key. Templates are made and changed through the
// REST calls (docs/api.md "Templates"); these pages only read.
import type { Template } from '../../../core/templates/template-store.js';
import { TEMPLATE_LIMITS } from '../../../core/templates/template-limits.js';
import { html, type Html } from '../html.js';
import type { DashboardSession } from '../session.js';
import type { TemplateMessage } from '../template-message.js';
import { messageDetails } from './message.js';
import { pager, type Paging } from './pager.js';
import { count } from './format.js';

/** Templates a page: an app holds at most TEMPLATE_LIMITS.per_app (1,000), so 40 pages at most. */
export const TEMPLATES_PAGE = 25;

const day = (iso: string) => iso.slice(0, 16).replace('T', '\u00a0');
/** A template's line of text in the list: its default language's text, else its title. */
function summary(t: Template): string {
  const texts = (t.content.contents ?? t.content.headings ?? {}) as Record<string, unknown>;
  const text = texts.en ?? Object.values(texts)[0];
  return typeof text === 'string' ? text : '';
}
const languages = (t: Template) => Object.keys((t.content.contents ?? {}) as object);

export function templatesPage(templates: Template[], paging: Paging, session: DashboardSession): Html {
  return html`<h1>Templates</h1>
  ${pager('/dashboard/templates', templates.length, 'template', paging)}
  ${templates.length ? html`<div class="table-wrap"><table id="templates">
    <thead><tr><th scope="col">Name</th><th scope="col">Text</th><th scope="col">Languages</th><th scope="col">Changed (UTC)</th>${session.scope === 'send' ? html`<th scope="col"><span class="visually-hidden">Compose</span></th>` : ''}</tr></thead>
    <tbody>${templates.map((t) => html`<tr data-id="${t.id}">
      <td data-label="Name"><a href="/dashboard/templates/${t.id}">${t.name}</a></td>
      <td data-label="Text" class="message">${summary(t)}</td>
      <td data-label="Languages">${languages(t).join(', ') || '—'}</td>
      <td data-label="Changed" class="date">${day(t.updatedAt)}</td>
      ${session.scope === 'send' ? html`<td><a href="/dashboard/compose?template=${t.id}">New message from it</a></td>` : ''}
    </tr>`)}</tbody></table></div>` : ''}
  <p class="note">Templates are made and changed through the REST API (createTemplate, updateTemplate; docs/api.md "Templates"), up to ${count(TEMPLATE_LIMITS.per_app)} an app. A send that names one by <code>template_id</code> carries its content, its own fields first.</p>`;
}

export function templatePage(t: Template, shown: TemplateMessage, session: DashboardSession): Html {
  return html`<p><a href="/dashboard/templates">← Templates</a></p>
  <h1 id="template-name">${t.name}</h1>
  <dl class="header">
    <div><dt>Id</dt><dd class="mono" id="template-id">${t.id}</dd></div>
    <div><dt>Created</dt><dd>${day(t.createdAt)} UTC</dd></div>
    <div><dt>Changed</dt><dd>${day(t.updatedAt)} UTC</dd></div>
  </dl>
  ${session.scope === 'send' ? html`<p><a class="button" id="compose-from" href="/dashboard/compose?template=${t.id}">New message from this template</a></p>` : ''}
  ${shown.ok
    ? messageDetails(shown.message)
    : html`<p class="field-errors" role="alert">This template no longer passes the send's rules: ${shown.problems.join(' ')} A send naming it is refused until it is changed.</p>
      <pre id="template-content">${JSON.stringify(t.content, null, 2)}</pre>`}`;
}
