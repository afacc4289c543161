// The templates pages (issue 30 point 6, issue 40 point 3): the app's templates a page at a time
// (oldest first, as viewTemplates lists them) with New template, and one template's page, titled by
// its name, showing its whole message (message.ts) and its preview, with Edit, Copy, Delete and
// "New message from this template" for a key that may send (the editor: template-edit.ts).
import { mayUse } from '../../../core/apps/keys.js';
import type { Template } from '../../../core/templates/template-store.js';
import { TEMPLATE_LIMITS } from '../../../core/templates/template-limits.js';
import { html, type Html } from '../html.js';
import type { DashboardSession } from '../session.js';
import type { TemplateMessage } from '../template-message.js';
import { messageDetails } from './message.js';
import { pager, type Paging } from './pager.js';
import { count } from './format.js';
import { previews } from './previews.js';
import { formFromContent, TEMPLATE_SECTIONS } from '../form/forms.js';

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

export function templatesPage(templates: Template[], paging: Paging, session: DashboardSession, notice?: string): Html {
  return html`<h1>Templates</h1>
  ${notice ? html`<p class="ok" role="status" id="notice">${notice}</p>` : ''}
  ${mayUse(session.scope, 'send') ? html`<p><a class="button" id="new-template" href="/dashboard/templates/new">New template</a></p>` : ''}
  ${pager('/dashboard/templates', templates.length, 'template', paging)}
  ${templates.length ? html`<div class="table-wrap"><table id="templates">
    <thead><tr><th scope="col">Name</th><th scope="col">Text</th><th scope="col">Languages</th><th scope="col">Changed (UTC)</th>${mayUse(session.scope, 'send') ? html`<th scope="col"><span class="visually-hidden">Compose</span></th>` : ''}</tr></thead>
    <tbody>${templates.map((t) => html`<tr data-id="${t.id}">
      <td data-label="Name"><a href="/dashboard/templates/${t.id}">${t.name}</a></td>
      <td data-label="Text" class="message">${summary(t)}</td>
      <td data-label="Languages">${languages(t).join(', ') || '—'}</td>
      <td data-label="Changed" class="date">${day(t.updatedAt)}</td>
      ${mayUse(session.scope, 'send') ? html`<td><a href="/dashboard/compose?template=${t.id}">New message from it</a></td>` : ''}
    </tr>`)}</tbody></table></div>` : ''}
  <p class="note">Made here or through the REST API (createTemplate, updateTemplate; docs/api.md "Templates"), up to ${count(TEMPLATE_LIMITS.per_app)} an app. A send that names one by <code>template_id</code> carries its content, its own fields first.</p>`;
}

export function templatePage(t: Template, shown: TemplateMessage, session: DashboardSession, appName: string): Html {
  const canChange = mayUse(session.scope, 'send');
  return html`<p><a href="/dashboard/templates">← Templates</a></p>
  <h1 id="template-name">${t.name}</h1>
  <dl class="header">
    <div><dt>Id</dt><dd class="mono" id="template-id">${t.id}</dd></div>
    <div><dt>Created</dt><dd>${day(t.createdAt)} UTC</dd></div>
    <div><dt>Changed</dt><dd>${day(t.updatedAt)} UTC</dd></div>
  </dl>
  ${canChange ? html`<div class="confirm actions">
      <a class="button" id="compose-from" href="/dashboard/compose?template=${t.id}">New message from this template</a>
      <a class="button secondary" id="edit-template" href="/dashboard/templates/${t.id}/edit">Edit</a>
      <form method="post" action="/dashboard/templates/${t.id}/copy" class="inline"><input type="hidden" name="_csrf" value="${session.csrf}"><button type="submit" class="secondary-button" id="copy-template">Copy</button></form>
      <a class="button danger" id="delete-template" href="/dashboard/templates/${t.id}/delete">Delete…</a>
    </div>` : ''}
  <div class="compose-layout">
    <div>${shown.ok
      ? messageDetails(shown.message, true)
      : html`<p class="field-errors" role="alert">This template no longer passes the send's rules: ${shown.problems.join(' ')} A send naming it is refused until it is changed.</p>
        <pre id="template-content">${JSON.stringify(t.content, null, 2)}</pre>`}</div>
    ${previews(appName, formFromContent(TEMPLATE_SECTIONS, t.content))}
  </div>`;
}
