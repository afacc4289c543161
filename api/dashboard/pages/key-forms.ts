// Making and revoking a key in the dashboard (issue 40 point 2), each behind one confirmation: the
// new key's form, the page that asks "Create this key?", the page that shows the key once (never
// again: only its SHA-256 is kept), and the page that asks before a revoke. Every form carries the
// session's CSRF token.
import { KEY_SCOPES, SCOPE_MEANINGS, type KeyRecord } from '../../../core/apps/keys.js';
import { KEY_REQUEST_LIMITS, type KeyRequest } from '../../../core/apps/key-requests.js';
import type { FieldIssue } from '../../../core/errors.js';
import { errorList, invalidWhen } from '../errors.js';
import { html, type Html } from '../html.js';
import { copyButton } from './settings.js';

export interface KeyForm {
  name: string;
  scope: string;
  /** One address or range a line. */
  allow_ips: string;
}

export const keyFormOf = (body: Record<string, unknown>): KeyForm => ({
  name: typeof body.name === 'string' ? body.name : '',
  scope: typeof body.scope === 'string' ? body.scope : 'send',
  allow_ips: typeof body.allow_ips === 'string' ? body.allow_ips : '',
});

export const allowIpsOf = (form: KeyForm) => form.allow_ips.split(/[\s,]+/).filter(Boolean);

const hidden = (csrf: string, form: KeyForm) => html`<input type="hidden" name="_csrf" value="${csrf}">
  <input type="hidden" name="name" value="${form.name}"><input type="hidden" name="scope" value="${form.scope}"><input type="hidden" name="allow_ips" value="${form.allow_ips}">`;

export function newKeyPage(csrf: string, form: KeyForm, issues: FieldIssue[] = []): Html {
  const of = (field: string) => issues.filter((i) => i.field === field).map((i) => i.message);
  const others = issues.filter((i) => !['name', 'scope', 'allow_ips'].includes(i.field)).map((i) => i.message);
  return html`<p><a href="/dashboard/settings">← Settings</a></p>
  <h1>New key</h1>
  <form method="post" action="/dashboard/settings/keys/new" class="key-form" novalidate>
    <input type="hidden" name="_csrf" value="${csrf}">
    ${errorList('form', others)}
    <label>Name (what it is for) <input name="name" value="${form.name}" maxlength="${KEY_REQUEST_LIMITS.name}" required ${invalidWhen('name', of('name').length > 0)}></label>
    ${errorList('name', of('name'))}
    <fieldset ${invalidWhen('scope', of('scope').length > 0)}><legend>Scope</legend>
      ${KEY_SCOPES.map((s) => html`<label class="check"><input type="radio" name="scope" value="${s}" ${form.scope === s ? html`checked` : ''}> <span><strong>${s}</strong>: ${SCOPE_MEANINGS[s]}</span></label>`)}
    </fieldset>
    ${errorList('scope', of('scope'))}
    <label>Allowed from (addresses or ranges, one a line; empty: anywhere)
      <textarea name="allow_ips" rows="3" class="mono" maxlength="${KEY_REQUEST_LIMITS.allow_ips * (KEY_REQUEST_LIMITS.allow_ip_chars + 1)}" ${invalidWhen('allow_ips', of('allow_ips').length > 0)}>${form.allow_ips}</textarea></label>
    ${errorList('allow_ips', of('allow_ips'))}
    <div class="confirm">
      <button type="submit" name="step" value="review">Review</button>
      <a class="button secondary" href="/dashboard/settings">Cancel</a>
    </div>
  </form>`;
}

/** The one confirmation before a key is made. */
export function keyReviewPage(csrf: string, form: KeyForm, request: KeyRequest): Html {
  return html`<h1>Create this key?</h1>
  <dl class="header" id="key-review">
    <div><dt>Name</dt><dd data-field="Name">${request.name}</dd></div>
    <div><dt>Scope</dt><dd data-field="Scope">${request.scope}: ${SCOPE_MEANINGS[request.scope]}</dd></div>
    <div><dt>Allowed from</dt><dd data-field="Allowed from" class="mono">${request.allowIps.join(', ') || 'anywhere'}</dd></div>
  </dl>
  <p>The key is shown once, on the next page: copy it then. Herald keeps only its SHA-256.</p>
  <form method="post" action="/dashboard/settings/keys/new" class="confirm">
    ${hidden(csrf, form)}
    <button type="submit" name="step" value="create">Create the key</button>
    <button type="submit" name="step" value="edit" class="secondary-button">Edit</button>
  </form>`;
}

/** The key, once. The page is not cached (Cache-Control: no-store on every dashboard page). */
export function keyCreatedPage(record: KeyRecord, key: string): Html {
  return html`<h1>Key ${record.name} created</h1>
  <p class="ok" role="status">Copy it now: it is shown this once, and never again.</p>
  <p><code id="new-key" class="mono secret">${key}</code> ${copyButton('new-key', 'Copy the key')}</p>
  <dl class="header">
    <div><dt>Scope</dt><dd>${record.scope}</dd></div>
    <div><dt>Allowed from</dt><dd class="mono">${record.allowIps.join(', ') || 'anywhere'}</dd></div>
    <div><dt>Id</dt><dd class="mono">${record.id}</dd></div>
  </dl>
  <p><a class="button" href="/dashboard/settings">Done</a></p>`;
}

export function revokeConfirmPage(csrf: string, key: KeyRecord, own: boolean): Html {
  return html`<h1>Revoke key ${key.name}?</h1>
  <p>Calls made with it are refused within 5 seconds, and its dashboard sessions end.${own ? ' This session is signed in with it: it ends too.' : ''} A revoked key cannot be used again; make a new one instead.</p>
  <form method="post" action="/dashboard/settings/keys/${key.id}/revoke" class="confirm">
    <input type="hidden" name="_csrf" value="${csrf}">
    <button type="submit" class="danger">Yes, revoke ${key.name}</button>
    <a class="button secondary" href="/dashboard/settings">No, keep it</a>
  </form>`;
}
