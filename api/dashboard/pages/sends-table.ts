// The table of the sends an install or a user was in (its pages), newest first, or the sentence
// saying none of the checked sends reached it.
import type { NotificationReport } from '../../../core/send/report.js';
import { html, type Html } from '../html.js';
import { statusClass, statusName, when } from './format.js';

export function sendsTable(sends: NotificationReport[], checked: number): Html {
  return sends.length
    ? html`<div class="table-wrap"><table id="sends">
        <thead><tr><th scope="col">Message</th><th scope="col">Status</th><th scope="col">Created (UTC)</th><th scope="col" class="num">Id</th></tr></thead>
        <tbody class="rows">${sends.map((n) => html`<tr data-id="${n.id}">
          <td data-label="Message"><a class="row-link" href="/dashboard/sends/${n.id}">${n.contents.en ?? Object.values(n.contents)[0] ?? '(no text)'}</a></td>
          <td data-label="Status"><span class="${statusClass(n)}">${statusName(n)}</span></td>
          <td data-label="Created" class="date">${when(n.queued_at, false)}</td>
          <td data-label="Id" class="num">${n.id}</td>
        </tr>`)}</tbody></table></div>`
    : html`<p>None of the app's latest ${checked} sends.</p>`;
}
