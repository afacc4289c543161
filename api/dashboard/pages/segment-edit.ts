// A segment's page and the forms that make and change segments in the dashboard (issue 27 points
// 3 and 7): the same fields as createSegment and updateSegment (a name, and `filters` in the
// condition language of a send, as JSON), checked by the same validator. A built-in or App
// resource segment is shown read-only with a note saying where it comes from.
import type { Segment } from '../../../core/audience/segments.js';
import { describeSegment } from '../../../core/audience/segments.js';
import { SEGMENT_LIMITS } from '../../../core/segments/segment-limits.js';
import type { FieldIssue } from '../../../core/errors.js';
import { errorList, invalidWhen } from '../errors.js';
import { html, type Html } from '../html.js';
import { count } from './format.js';
import { audienceTabs } from './audience.js';

export interface SegmentForm {
  name: string;
  filters: string;
}

/** The form's area of an issue: `name`, `filters` (any entry), else the form as a whole. */
export const segmentArea = (field: string) => (field === 'name' ? 'name' : field.startsWith('filters') ? 'filters' : 'form');

const EXAMPLE = '[{"field": "tag", "key": "plan", "relation": "=", "value": "gold"}, {"operator": "OR"}, {"field": "language", "relation": "=", "value": "fr"}]';

function fields(form: SegmentForm, issues: FieldIssue[]): Html {
  const of = (area: string) => issues.filter((i) => segmentArea(i.field) === area).map((i) => i.message);
  return html`${errorList('form', of('form'))}
    <label for="name">Name</label>
    <input id="name" name="name" required maxlength="${SEGMENT_LIMITS.name}" value="${form.name}" ${invalidWhen('name', of('name').length > 0)}>
    ${errorList('name', of('name'))}
    <label for="filters">Filters <span class="note">(JSON: the conditions of a send's <span class="mono">filters</span>, up to ${SEGMENT_LIMITS.filter_entries} entries; docs/api.md "Segments")</span></label>
    <textarea id="filters" name="filters" rows="8" class="mono" required placeholder="${EXAMPLE}" ${invalidWhen('filters', of('filters').length > 0)}>${form.filters}</textarea>
    ${errorList('filters', of('filters'))}`;
}

/** A new segment's form. */
export function newSegmentPage(csrf: string, form: SegmentForm, issues: FieldIssue[] = []): Html {
  return html`<h1>Audience</h1>${audienceTabs('segments')}
  <h2>New segment</h2>
  <form method="post" action="/dashboard/audience/segments/new" class="segment-form">
    <input type="hidden" name="_csrf" value="${csrf}">
    ${fields(form, issues)}
    <button type="submit">Create segment</button>
    <a class="button secondary" href="/dashboard/audience/segments">Cancel</a>
  </form>`;
}

/** Where a read-only segment comes from, in a sentence. */
function origin(s: Segment, appName: string): string {
  if (s.source === 'built_in') return 'Built in: every app has this segment. It cannot be changed.';
  if (s.source === 'app_resource') return `Defined by the App resource ${appName} (spec.segments), its GitOps source: change it there, not here.`;
  return s.shadowed ? `The App resource ${appName} now defines a segment of this name: sends reach that one, and this one reaches no one until it is renamed or deleted.` : '';
}

/**
 * One segment: who it holds and its size; for a segment made through the API and a key of scope
 * send, its edit form and its delete form (a box to tick first).
 */
export function segmentPage(s: Segment, o: { appName: string; size: number; canChange: boolean; csrf: string; form?: SegmentForm; issues?: FieldIssue[]; deleteError?: string }): Html {
  const note = origin(s, o.appName);
  const editable = s.source === 'api' && o.canChange;
  const form = o.form ?? { name: s.name, filters: JSON.stringify(s.filters, null, 1) };
  return html`<h1>Audience</h1>${audienceTabs('segments')}
  <h2 id="segment-name">${s.name}</h2>
  ${note ? html`<p class="note" id="segment-origin">${note}</p>` : ''}
  <dl class="facts">
    <dt>Who</dt><dd class="mono">${s.source === 'built_in' ? s.name : describeSegment(s)}</dd>
    <dt>Installs</dt><dd class="size">${count(o.size)}</dd>
    <dt>Id</dt><dd class="mono">${s.id}</dd>
  </dl>
  ${editable
    ? html`<form method="post" action="/dashboard/audience/segments/${s.id}" class="segment-form">
        <input type="hidden" name="_csrf" value="${o.csrf}">
        ${fields(form, o.issues ?? [])}
        <button type="submit">Save changes</button>
      </form>
      <form method="post" action="/dashboard/audience/segments/${s.id}/delete" class="confirm">
        <input type="hidden" name="_csrf" value="${o.csrf}">
        <label><input type="checkbox" name="confirm" value="yes" ${invalidWhen('delete', !!o.deleteError)}> Delete this segment: a send still naming it will not go out.</label>
        ${errorList('delete', o.deleteError ? [o.deleteError] : [])}
        <button type="submit" class="danger">Delete segment</button>
      </form>`
    : s.source === 'api' ? html`<p class="note">Changing a segment needs a key of scope send.</p>` : ''}
  <p><a href="/dashboard/audience/segments">All segments</a></p>`;
}
