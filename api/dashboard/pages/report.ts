// A send's report: the header (how it was made, start, duration, throttle), the whole message
// (message.ts: every language, link, data, button, template, iOS fields), the funnel with rates,
// a progress bar and the delivery-over-time chart (inline SVG from the chunks' finish times),
// which dashboard.js refreshes from live.json while the send runs; for a Live Activity update or
// end, how it went out (its broadcast channel, its per-token pushes); cancel with a send key.
import { mayUse } from '../../../core/apps/keys.js';
import { defaultContent, type DeliveryPoint, type NotificationReport } from '../../../core/send/report.js';
import { isFinalStatus } from '../../../core/send-model/states.js';
import { html, type Html } from '../html.js';
import { deliveryChart, deliveryChartMarkup } from './chart.js';
import type { DashboardSession } from '../session.js';
import type { SendMessage } from '../../../core/dashboard-reads/send-message.js';
import { messageDetails } from './message.js';
import { platformSection, platformTableMarkup } from './report-platforms.js';
import { count, duration, rate, SOURCE_NAMES, statusClass, statusName, when, type StatusWord } from './format.js';

export interface LiveReport {
  report: NotificationReport;
  timeline: DeliveryPoint[];
  final: boolean;
  /** The status as the page shows it, and its CSS class (the REST status stays in report.status). */
  statusWord: StatusWord;
  statusClass: string;
  /** Devices sent of the audience, 0..100 (floored: 100 only when every device was sent). */
  progress: number;
  progressText: string;
  duration: string;
  /** The chart's markup, drawn here so dashboard.js only swaps it in. */
  chart: string;
  /** A Live Activity update or end: how it went out (wentOut). */
  wentOut?: WentOut;
  /** Whether the App has Android installs, and the per-platform table's markup (report-platforms.ts). */
  androidInstalls: boolean;
  platforms: string;
}

export interface WentOut {
  broadcast: string;
  tokens: string;
}

/**
 * How a Live Activity update or end went out (issue 29): its broadcast channel as the REST report
 * says it (live_activity.broadcast, core/send/report.ts; absent: the activity had no channel), and
 * the tokens registered without it, which are the send's own counters. A start goes to
 * push-to-start tokens only: undefined.
 */
export function wentOut(r: NotificationReport): WentOut | undefined {
  const la = r.live_activity;
  if (!la || la.event === 'start') return undefined;
  const b = la.broadcast;
  return {
    broadcast: !b ? 'none (no channel): per-token pushes only'
      : b.status === 'accepted' ? "accepted by Apple: one request for every device on the activity's channel"
      : `failed (${b.reason ?? 'no reason'}): devices on the channel missed it; per-token pushes only`,
    tokens: `${count(r.sent)} sent, ${count(r.failed)} failed of ${count(r.total_recipients)}`,
  };
}

/** "1,150 of 1,200 devices (95%)": delivered of the audience, whatever the state (a canceled send is not 100 %). */
export function live(report: NotificationReport, timeline: DeliveryPoint[], androidInstalls = false): LiveReport {
  const progress = report.total_recipients ? Math.floor((report.sent / report.total_recipients) * 100) : 0;
  return {
    report, timeline, final: isFinalStatus(report.status), statusWord: statusName(report), statusClass: statusClass(report),
    progress,
    progressText: `${count(report.sent)} of ${count(report.total_recipients)} device${report.total_recipients === 1 ? '' : 's'} (${progress}%)`,
    duration: duration(report.send_after, report.completed_at),
    chart: deliveryChartMarkup(timeline, report.send_after),
    wentOut: wentOut(report),
    androidInstalls, platforms: platformTableMarkup(report, androidInstalls),
  };
}

export const cancellable = (r: NotificationReport) => !r.canceled && !isFinalStatus(r.status);

const step = (label: string, value: number, of: string, id: string) =>
  html`<li><span class="label">${label}</span> <strong id="${id}">${count(value)}</strong> <span class="rate" id="${id}-rate">${of}</span></li>`;

export function reportPage(data: LiveReport, session: DashboardSession, extra: { message: SendMessage; audience: string }): Html {
  const r = data.report;
  const title = defaultContent(r);
  return html`<p><a href="/dashboard/sends">← Sends</a></p>
  <h1>${r.name ? html`${r.name} <span class="note">· send ${r.id}</span>` : `Send ${r.id}`}</h1>
  <section aria-labelledby="header-title" id="report" data-live="${data.final ? '' : `/dashboard/sends/${r.id}/live.json`}">
    <h2 id="header-title" class="visually-hidden">Summary</h2>
    <p class="message">${r.headings.en ?? Object.values(r.headings)[0] ?? ''}${Object.keys(r.headings).length ? html`<br>` : ''}${title}</p>
    <dl class="header">
      <div><dt>Status</dt><dd><span id="status" class="${statusClass(r)}">${statusName(r)}</span></dd></div>
      <div><dt>Audience</dt><dd id="audience">${extra.audience}</dd></div>
      <div><dt>Created with</dt><dd>${SOURCE_NAMES[r.source]}</dd></div>
      <div><dt>Created</dt><dd>${when(r.queued_at)}</dd></div>
      <div><dt>Start</dt><dd>${when(r.send_after)}</dd></div>
      <div><dt>Duration</dt><dd id="duration">${data.duration}</dd></div>
      <div><dt>Throttle</dt><dd>${r.throttle_rate_per_minute ? `${count(r.throttle_rate_per_minute)} per minute` : 'none'}</dd></div>
    </dl>
    ${data.wentOut ? html`<dl class="header" id="went-out" aria-label="How the Live Activity ${r.live_activity!.event} went out">
      <div><dt>Broadcast channel</dt><dd id="broadcast">${data.wentOut.broadcast}</dd></div>
      <div><dt>Per-token pushes</dt><dd id="broadcast-tokens">${data.wentOut.tokens}</dd></div>
    </dl>` : ''}
    <p id="message-text">${r.message}</p>
    ${messageDetails(extra.message)}
    <label for="progress" class="progress-label">Delivered <span id="progress-text">${data.progressText}</span></label>
    <progress id="progress" max="100" value="${data.progress}">${data.progress}%</progress>
    <h2>Funnel</h2>
    <ol class="funnel">
      ${step('Audience', r.total_recipients, '', 'total')}
      ${step('Sent', r.sent, rate(r.sent, r.total_recipients), 'sent')}
      ${step('Failed', r.failed, rate(r.failed, r.total_recipients), 'failed')}
      ${step('Clicked', r.clicked, rate(r.clicked, r.sent), 'clicked')}
    </ol>
    <p class="note">Rates: sent and failed of the audience; clicked of sent. Skipped: <span id="skipped">${count(r.skipped)}</span>.</p>
    ${platformSection(r, data.androidInstalls)}
    <h2 id="chart-title">Delivery over time</h2>
    <div id="chart-box">${deliveryChart(data.timeline, r.send_after)}</div>
  </section>
  ${mayUse(session.scope, 'send') && cancellable(r)
    ? html`<p class="cancel" id="cancel-form"><a class="button danger" href="/dashboard/sends/${r.id}/cancel">Cancel this send…</a></p>`
    : ''}`;
}

/** The question before a cancel: what stops, that it cannot be undone, and a way back. */
export function cancelConfirmPage(data: LiveReport, session: DashboardSession, audience: string): Html {
  const r = data.report;
  const left = Math.max(0, r.total_recipients - r.sent - r.failed - r.skipped);
  return html`<h1>Cancel send ${r.id}?</h1>
  <p class="message">${defaultContent(r)}</p>
  <p>${statusName(r)} to ${audience}: ${data.progressText} delivered. ${r.status === 'scheduled'
    ? `Nothing has been sent yet; none of its ${count(r.total_recipients)} devices will receive it.`
    : `About ${count(left)} devices not yet sent will not receive it; devices already sent keep it.`} A canceled send cannot be resumed.</p>
  <form method="post" action="/dashboard/sends/${r.id}/cancel" class="confirm">
    <input type="hidden" name="_csrf" value="${session.csrf}">
    <button type="submit" class="danger">Yes, cancel this send</button>
    <a class="button secondary" href="/dashboard/sends/${r.id}">No, keep it</a>
  </form>`;
}
