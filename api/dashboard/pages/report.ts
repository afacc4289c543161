// A send's report: the header (how it was made, start, duration, throttle), the funnel with rates,
// a progress bar and the delivery-over-time chart (inline SVG from the chunks' finish times),
// which dashboard.js refreshes from live.json while the send runs; cancel with a send key.
import { defaultContent, type DeliveryPoint, type NotificationReport } from '../../../core/send/report.js';
import { isFinal } from '../../../core/send/stats.js';
import { html, type Html } from '../html.js';
import type { DashboardSession } from '../session.js';
import { count, duration, rate, SOURCE_NAMES, statusName, when } from './format.js';

export interface LiveReport {
  report: NotificationReport;
  timeline: DeliveryPoint[];
  final: boolean;
  progress: number; // 0..100
  duration: string;
  /** The chart's polyline, drawn here so dashboard.js only sets it. */
  points: string;
}

export function live(report: NotificationReport, timeline: DeliveryPoint[]): LiveReport {
  const done = report.total_recipients ? (report.processed / report.total_recipients) * 100 : 100;
  const final = isFinal(report.status);
  const end = report.completed_at ?? Math.floor(Date.now() / 1000);
  return {
    report, timeline, final,
    progress: final ? 100 : Math.min(100, Math.round(done)),
    duration: duration(report.send_after, report.completed_at),
    points: chartPoints(timeline, report.send_after, end),
  };
}

export const cancellable = (r: NotificationReport) => !r.canceled && !isFinal(r.status);

/** Cumulative devices sent from the start to the end (or now), as polyline points in a 600×160 box. */
export function chartPoints(timeline: DeliveryPoint[], start: number, end: number): string {
  if (!timeline.length) return '';
  const t0 = Math.min(start, timeline[0].at);
  const span = Math.max(1, end - t0, timeline[timeline.length - 1].at - t0);
  const total = timeline.reduce((s, p) => s + p.sent, 0) || 1;
  const x = (at: number) => Math.round(((at - t0) / span) * 600);
  const y = (sum: number) => Math.round(160 - (sum / total) * 150);
  let sum = 0;
  const points = ['0,160'];
  for (const p of timeline) {
    points.push(`${x(p.at)},${y(sum)}`); // a step: flat until this second, then up
    sum += p.sent;
    points.push(`${x(p.at)},${y(sum)}`);
  }
  points.push(`600,${y(sum)}`);
  return points.join(' ');
}

const step = (label: string, value: number, of: string, id: string) =>
  html`<li><span class="label">${label}</span> <strong id="${id}">${count(value)}</strong> <span class="rate" id="${id}-rate">${of}</span></li>`;

export function reportPage(data: LiveReport, session: DashboardSession): Html {
  const r = data.report;
  const title = defaultContent(r);
  return html`<p><a href="/dashboard/">← Sends</a></p>
  <h1>Send ${r.id}</h1>
  <section aria-labelledby="header-title" id="report" data-live="${data.final ? '' : `/dashboard/sends/${r.id}/live.json`}">
    <h2 id="header-title" class="visually-hidden">Summary</h2>
    <p class="message">${r.headings.en ?? Object.values(r.headings)[0] ?? ''}${Object.keys(r.headings).length ? html`<br>` : ''}${title}</p>
    <dl class="header">
      <div><dt>Status</dt><dd><span id="status" class="status status-${r.canceled ? 'canceled' : r.status}">${statusName(r)}</span></dd></div>
      <div><dt>Created with</dt><dd>${SOURCE_NAMES[r.source]}</dd></div>
      <div><dt>Created</dt><dd>${when(r.queued_at)}</dd></div>
      <div><dt>Start</dt><dd>${when(r.send_after)}</dd></div>
      <div><dt>Duration</dt><dd id="duration">${data.duration}</dd></div>
      <div><dt>Throttle</dt><dd>${r.throttle_rate_per_minute ? `${count(r.throttle_rate_per_minute)} per minute` : 'none'}</dd></div>
    </dl>
    <p id="message-text">${r.message}</p>
    <label for="progress" class="progress-label">Delivered <span id="progress-text">${data.progress}%</span></label>
    <progress id="progress" max="100" value="${data.progress}">${data.progress}%</progress>
    <h2>Funnel</h2>
    <ol class="funnel">
      ${step('Audience', r.total_recipients, '', 'total')}
      ${step('Sent', r.sent, rate(r.sent, r.total_recipients), 'sent')}
      ${step('Failed', r.failed, rate(r.failed, r.total_recipients), 'failed')}
      ${step('Clicked', r.clicked, rate(r.clicked, r.sent), 'clicked')}
    </ol>
    <p class="note">Rates: sent and failed of the audience; clicked of sent. Skipped: <span id="skipped">${count(r.skipped)}</span>.</p>
    <h2 id="chart-title">Delivery over time</h2>
    <svg class="chart" viewBox="0 0 600 160" role="img" aria-labelledby="chart-title" preserveAspectRatio="none">
      <polyline id="chart-line" fill="none" stroke="currentColor" stroke-width="2" points="${data.points}"></polyline>
    </svg>
    <p class="note" id="chart-note">${data.timeline.length ? `${data.timeline.length} seconds with deliveries` : 'No delivery yet.'}</p>
  </section>
  ${session.scope === 'send' && cancellable(r)
    ? html`<form method="post" action="/dashboard/sends/${r.id}/cancel" class="cancel" id="cancel-form">
        <input type="hidden" name="_csrf" value="${session.csrf}">
        <button type="submit" class="danger">Cancel this send</button>
      </form>`
    : ''}`;
}
