// The sends page: newest first, paged, filtered by source, status, date and text; and the CSV
// export of the same filtered list.
import { defaultContent, listNotifications, MAX_SEARCH_LENGTH, type ListFilter, type NotificationReport } from '../../../core/send/report.js';
import { SEND_SOURCES } from '../../../core/formats/send-source.js';
import type { Queryable } from '../../../core/store/db.js';
import { errorList } from '../errors.js';
import { html, type Html } from '../html.js';
import { sendAudiences } from '../send-audiences.js';
import { count, FILTER_WORDS, rate, scheduledFor, SOURCE_NAMES, statusClass, statusName, when } from './format.js';

export const PAGE_SIZE = 25;
const MAX_EXPORT = 10_000;

const option = (value: string, label: string, selected: string | undefined) =>
  html`<option value="${value}" ${selected === value ? html`selected` : ''}>${label}</option>`;

const day = (d: Date | undefined, endOfDay = false) =>
  d ? new Date(d.getTime() - (endOfDay ? 86_400_000 : 0)).toISOString().slice(0, 10) : '';

/** The query string of a filter (for paging links and the CSV link). */
export function filterQuery(f: ListFilter, offset = f.offset): string {
  const q = new URLSearchParams();
  if (f.source) q.set('source', f.source);
  if (f.status) q.set('status', f.status);
  if (f.from) q.set('from', day(f.from));
  if (f.to) q.set('to', day(f.to, true));
  if (f.search) q.set('q', f.search);
  if (offset) q.set('offset', String(offset));
  return q.toString();
}

/** A send's name, else its title in the default language, else nothing. */
export const nameOrTitle = (n: NotificationReport) => n.name ?? n.headings.en ?? Object.values(n.headings)[0] ?? '';

// The message cell's link is stretched over the whole row (CSS), so a click anywhere on the row
// opens the report, and the row is still one link for the keyboard and a screen reader.
function row(n: NotificationReport, audience: string): Html {
  const later = scheduledFor(n);
  return html`<tr data-id="${n.id}">
    <td data-label="Message" class="message"><a class="row-link" href="/dashboard/sends/${n.id}">${defaultContent(n) || (n.live_activity ? `(Live Activity ${n.live_activity.event}, no alert)` : '(no text)')}</a></td>
    <td data-label="Name or title" class="name">${nameOrTitle(n)}</td>
    <td data-label="Audience" class="audience">${audience} <span class="note">(${count(n.total_recipients)})</span></td>
    <td data-label="Status"><span class="${statusClass(n)}">${statusName(n)}</span></td>
    <td data-label="Created" class="date"><span><span class="nowrap">${when(n.queued_at, false)}</span>${later ? html`<br><span class="note nowrap">for ${later}</span>` : ''}</span></td>
    <td data-label="Sent" class="num">${count(n.sent)}</td>
    <td data-label="Failed" class="num">${count(n.failed)}</td>
    <td data-label="Clicked" class="num">${count(n.clicked)}</td>
    <td data-label="Click rate" class="num">${rate(n.clicked, n.sent)}</td>
    <td data-label="Source">${SOURCE_NAMES[n.source]}</td>
    <td data-label="Id" class="num">${n.id}</td>
  </tr>`;
}

export async function sendsPage(db: Queryable, appId: string, filter: ListFilter, errors: string[] = []): Promise<Html> {
  const page = errors.length > 0 ? { total_count: 0, offset: 0, limit: PAGE_SIZE, notifications: [] } : await listNotifications(db, appId, filter);
  const last = page.offset + page.notifications.length;
  const audiences = await sendAudiences(db, appId, page.notifications.map((n) => n.id));
  return html`<h1>Sends</h1>
  <form method="get" action="/dashboard/sends" class="filters" role="search" aria-label="Filter sends">
    <label>Source <select name="source"><option value="">Any</option>${SEND_SOURCES.map((s) => option(s, SOURCE_NAMES[s], filter.source))}</select></label>
    <label>Status <select name="status"><option value="">Any</option>${FILTER_WORDS.map(([value, word]) => option(value, word, filter.status))}</select></label>
    <label>From <input type="date" name="from" value="${day(filter.from)}"></label>
    <label>To <input type="date" name="to" value="${day(filter.to, true)}"></label>
    <label>Search <input type="search" name="q" value="${filter.search ?? ''}" maxlength="${MAX_SEARCH_LENGTH}" placeholder="text or id"></label>
    <button type="submit">Filter</button>
    <a class="button secondary" href="/dashboard/sends.csv?${filterQuery(filter, 0)}" download>Export CSV</a>
  </form>
  ${errorList('filters', errors)}
  <p aria-live="polite">${page.total_count ? html`Showing ${page.offset + 1}–${last} of ${count(page.total_count)}` : 'No sends match.'}</p>
  <div class="table-wrap"><table>
    <caption class="visually-hidden">Sends, newest first</caption>
    <thead><tr><th scope="col">Message</th><th scope="col">Name or title</th><th scope="col">Audience</th><th scope="col">Status</th>
      <th scope="col">Created (UTC)</th><th scope="col" class="num">Sent</th><th scope="col" class="num">Failed</th>
      <th scope="col" class="num">Clicked</th><th scope="col" class="num">Click rate</th><th scope="col">Source</th><th scope="col" class="num">Id</th></tr></thead>
    <tbody class="rows">${page.notifications.map((n) => row(n, audiences.get(n.id) ?? ''))}</tbody>
  </table></div>
  <nav class="pages" aria-label="Pages">
    ${page.offset > 0 ? html`<a href="/dashboard/sends?${filterQuery(filter, Math.max(0, page.offset - PAGE_SIZE))}" rel="prev">← Newer</a>` : ''}
    ${last < page.total_count ? html`<a href="/dashboard/sends?${filterQuery(filter, last)}" rel="next">Older →</a>` : ''}
  </nav>`;
}

const csvField = (v: string | number | boolean | null) => {
  const s = v === null ? '' : String(v);
  // A leading = + - @ would be a formula in a spreadsheet: quote it with a leading apostrophe.
  const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
};

export async function sendsCsv(db: Queryable, appId: string, filter: ListFilter): Promise<string> {
  const lines = ['id,message,status,canceled,source,created,send_after,completed,total,sent,failed,skipped,clicked,click_rate'];
  for (let offset = 0; offset < MAX_EXPORT; offset += 50) {
    const page = await listNotifications(db, appId, { ...filter, limit: 50, offset }, { count: false });
    for (const n of page.notifications) {
      const iso = (s: number | null) => (s === null ? null : new Date(s * 1000).toISOString());
      lines.push([n.id, defaultContent(n), n.status, n.canceled, SOURCE_NAMES[n.source], iso(n.queued_at), iso(n.send_after), iso(n.completed_at),
        n.total_recipients, n.sent, n.failed, n.skipped, n.clicked, rate(n.clicked, n.sent)].map(csvField).join(','));
    }
    if (page.notifications.length < 50) break;
  }
  return `${lines.join('\r\n')}\r\n`;
}
