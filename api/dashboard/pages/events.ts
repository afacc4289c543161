// The events page (issue 28 point 5): the app's webhook destinations (and its NATS stream, when
// on) with their state (delivering, retrying, failing: core/events/health.ts), the last error,
// retries and backlog, and the app's latest events as a destination receives them, a page at a
// time. The destinations are configured in the App (docs/events.md); this page only reads.
import type { DestinationView } from '../../../core/dashboard-reads/app-events.js';
import { BACKLOG_COUNT_CAP, FAILING_AFTER_MS, type DestinationState } from '../../../core/events/health.js';
import { STREAM_DESTINATION } from '../../../core/events/stream.js';
import type { HeraldEvent } from '../../../core/events/expand.js';
import { html, type Html } from '../html.js';
import { count, when } from './format.js';

export const STATE_WORDS: Record<DestinationState, string> = { delivering: 'Delivering', retrying: 'Retrying', failing: 'Failing' };
const seconds = (d: Date | null) => (d ? Math.floor(d.getTime() / 1000) : null);

/** A URL without its query and fragment: a receiver's URL may carry a token there, and the page need not show it. */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}${u.search || u.hash ? ' (query not shown)' : ''}`;
  } catch {
    return url;
  }
}

function backlog(d: DestinationView): string {
  if (d.backlogRecords === 0) return 'none: up to date';
  const n = d.backlogRecords >= BACKLOG_COUNT_CAP ? `${count(BACKLOG_COUNT_CAP)} or more records` : `${count(d.backlogRecords)} record${d.backlogRecords === 1 ? '' : 's'}`;
  return `${n} not yet delivered${d.deliveredOffset ? ` (${count(d.deliveredOffset)} events of the first already)` : ''}`;
}

function destination(d: DestinationView): Html {
  const stream = d.name === STREAM_DESTINATION;
  return html`<section class="destination" data-name="${d.name}" aria-labelledby="dest-${d.name}">
    <h3 id="dest-${d.name}">${stream ? 'NATS stream' : d.name} <span class="state state-${d.state}" data-field="State">${STATE_WORDS[d.state]}</span></h3>
    <dl class="header">
      <div><dt>Where</dt><dd data-field="Where">${stream ? 'JetStream, subjects herald.events.<app>.<kind>' : shownUrl(d.url)}</dd></div>
      <div><dt>Kinds</dt><dd data-field="Kinds">${d.kinds?.join(', ') ?? 'every kind'}</dd></div>
      <div><dt>Backlog</dt><dd data-field="Backlog">${backlog(d)}</dd></div>
      <div><dt>Last error</dt><dd data-field="Last error">${d.lastError ?? '—'}</dd></div>
      <div><dt>Failed attempts</dt><dd data-field="Failed attempts">${count(d.attempts)}</dd></div>
      <div><dt>Failing since</dt><dd data-field="Failing since">${when(seconds(d.failingSince))}</dd></div>
      <div><dt>Next attempt</dt><dd data-field="Next attempt">${d.state === 'delivering' ? '—' : when(seconds(d.retryAt))}</dd></div>
      ${d.droppedRecords ? html`<div><dt>Lost to retention</dt><dd data-field="Lost to retention">${count(d.droppedEvents)} events (${count(d.droppedRecords)} records), last ${when(seconds(d.lastDroppedAt))}</dd></div>` : ''}
    </dl>
  </section>`;
}

/** What an event says beyond its kind: Apple's reason, a send's counts, a Live Activity's. */
function details(e: HeraldEvent): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(e.event.data ?? {})) parts.push(`${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`);
  for (const [k, v] of Object.entries(e.notification ?? {})) if (v !== undefined && v !== null) parts.push(`${k}: ${v}`);
  return parts.join(', ');
}

function eventRow(e: HeraldEvent): Html {
  const install = e.subscription?.id;
  return html`<tr data-id="${e.event.id}" data-kind="${e.event.kind}">
    <td data-label="Time" class="date">${when(e.event.timestamp)}</td>
    <td data-label="Kind"><code>${e.event.kind}</code></td>
    <td data-label="Send">${e.message ? html`<a href="/dashboard/sends/${e.message.id}">${e.message.id}</a>` : '—'}</td>
    <td data-label="Install">${install ? html`<a class="mono" href="/dashboard/audience/installs/${install}">${install}</a>` : '—'}</td>
    <td data-label="External id">${e.user?.external_id ?? '—'}</td>
    <td data-label="Details">${details(e)}</td>
  </tr>`;
}

export function eventsPage(destinations: DestinationView[], events: HeraldEvent[], paging: { next?: string; later: boolean }): Html {
  return html`<h1>Events</h1>
  <h2 id="destinations-title">Destinations</h2>
  ${destinations.length
    ? html`<div id="destinations">${destinations.map(destination)}</div>
      <p class="note">Retrying: its current batch has failed, for less than ${FAILING_AFTER_MS / 60_000} minutes; failing: for longer. Either way it is tried again with back-off and resumes where it stopped. The backlog counts the app's records after its place (a chunk's record holds up to 500 devices' events).</p>`
    : html`<p id="destinations">No destinations: name them in the App's <code>spec.events.destinations</code> (docs/events.md).</p>`}
  <h2 id="events-title">Latest events</h2>
  ${events.length
    ? html`<div class="table-wrap"><table id="events" aria-labelledby="events-title">
      <thead><tr><th scope="col">Time (UTC)</th><th scope="col">Kind</th><th scope="col">Send</th><th scope="col">Install</th><th scope="col">External id</th><th scope="col">Details</th></tr></thead>
      <tbody>${events.map(eventRow)}</tbody></table></div>`
    : html`<p id="events">${paging.later ? 'No older events.' : 'No events recorded: events are recorded while the app has a destination.'}</p>`}
  ${paging.later || paging.next ? html`<nav class="pager" aria-label="Pages">
    ${paging.later ? html`<a href="/dashboard/events">Newest</a>` : ''}
    ${paging.next ? html`<a href="/dashboard/events?${paging.next}" rel="next">Older events</a>` : ''}
  </nav>` : ''}`;
}
