// The overview (issue 40 point 1), the first page after signing in: the app's reachable devices now
// and over 30 days (subscribed; unsubscribed by the app and by Apple or Google told apart; iOS and
// Android, issue 39 point 8), sends and devices
// sent, failed and opened per hour or day of the range with the open rate, and why devices failed;
// each a chart with named axes and its numbers in a table view. The range picker is a set of links
// (no script). Figures: core/dashboard-reads/overview.ts.
import type { Overview } from '../../../core/dashboard-reads/overview.js';
import { DEVICE_DAYS } from '../../../core/dashboard-reads/overview.js';
import { RANGE_NAMES, RANGES, type RangeName } from '../../../core/dashboard-reads/overview-range.js';
import { COUNT_EVERY_MS } from '../../../core/overview/device-counts.js';
import { html, type Html } from '../html.js';
import { barList } from './bar-list.js';
import { count, rate, when } from './format.js';
import { timeChart } from './time-chart.js';

const day = (d: Date) => d.toISOString().slice(0, 10);
const hour = (d: Date) => d.toISOString().slice(11, 16);
const unitWord = (range: RangeName) => (RANGES[range].unit === 'hour' ? 'hour' : 'day');

function labels(o: Overview) {
  return o.delivery.map((b) => (RANGES[o.range].unit === 'hour'
    ? { short: hour(b.at), long: `${day(b.at)} ${hour(b.at)} UTC` }
    : { short: day(b.at).slice(5), long: day(b.at) }));
}

function tile(id: string, label: string, value: string, note?: Html | string): Html {
  return html`<div class="tile" id="${id}"><dt>${label}</dt><dd><strong>${value}</strong>${note ? html`<span class="note">${note}</span>` : ''}</dd></div>`;
}

/** Now: the latest count, each platform's reachable devices, and who said the others no longer take pushes. */
function devicesNow(o: Overview): Html {
  const last = o.devices.at(-1);
  if (!last || !o.countedAt) {
    return html`<p class="note" id="devices-now">Devices are counted every ${COUNT_EVERY_MS / 60_000} minutes; this app has not been counted yet.</p>`;
  }
  const { ios, android } = last.platforms;
  return html`<dl class="tiles" id="devices-now">
    ${tile('reachable', 'Reachable now', count(last.subscribed), `subscribed, counted ${when(Math.floor(o.countedAt.getTime() / 1000))}`)}
    ${tile('reachable-ios', 'iOS', count(ios.subscribed), 'reachable through APNs')}
    ${tile('reachable-android', 'Android', count(android.subscribed), 'reachable through FCM')}
    ${tile('unsubscribed-app', 'Unsubscribed by the app', count(last.unsubscribedApp), 'its SDK said the user turned pushes off')}
    ${tile('unsubscribed-apple', 'Unsubscribed by Apple', count(ios.unsubscribedGateway), 'Apple refused the token for good')}
    ${android.unsubscribedGateway ? tile('unsubscribed-google', 'Unsubscribed by Google', count(android.unsubscribedGateway), 'FCM said the token is no longer valid') : ''}
    ${last.unsubscribedUnknown ? tile('unsubscribed-unknown', 'Unsubscribed, no reason recorded', count(last.unsubscribedUnknown), 'before Herald kept the reason') : ''}
  </dl>`;
}

function devicesChart(o: Overview, now: Date): Html {
  const days = Array.from({ length: DEVICE_DAYS }, (_, i) => day(new Date(now.getTime() - (DEVICE_DAYS - 1 - i) * 86_400_000)));
  const byDay = new Map(o.devices.map((d) => [d.day, d]));
  const values = (pick: (d: NonNullable<ReturnType<typeof byDay.get>>) => number) => days.map((d) => (byDay.has(d) ? pick(byDay.get(d)!) : null));
  // The gateway's refusals are Apple's until an Android install has been counted, then both's.
  const google = o.devices.some((d) => d.platforms.android.subscribed || d.platforms.android.unsubscribedApp || d.platforms.android.unsubscribedGateway);
  const labels = days.map((d) => ({ short: d.slice(5), long: d }));
  return html`${timeChart({
    id: 'devices-chart', title: `Devices by state at the end of each day, last ${DEVICE_DAYS} days`, xTitle: 'Day (UTC)', yTitle: 'Devices', stacked: true, labels,
    series: [
      { name: 'Subscribed', kind: 'bar', tone: 1, values: values((d) => d.subscribed) },
      { name: 'Unsubscribed by the app', kind: 'bar', tone: 2, values: values((d) => d.unsubscribedApp) },
      { name: google ? 'Unsubscribed by Apple or Google' : 'Unsubscribed by Apple', kind: 'bar', tone: 3, values: values((d) => d.unsubscribedGateway) },
      ...(o.devices.some((d) => d.unsubscribedUnknown) ? [{ name: 'Unsubscribed, no reason recorded', kind: 'bar' as const, tone: 4 as const, values: values((d) => d.unsubscribedUnknown) }] : []),
    ],
  })}
  <h3>Reachable devices by platform</h3>
  ${timeChart({
    id: 'platforms-chart', title: `Subscribed devices by platform at the end of each day, last ${DEVICE_DAYS} days`, xTitle: 'Day (UTC)', yTitle: 'Devices', stacked: true, labels,
    series: [
      { name: 'iOS', kind: 'bar', tone: 1, values: values((d) => d.platforms.ios.subscribed) },
      { name: 'Android', kind: 'bar', tone: 2, values: values((d) => d.platforms.android.subscribed) },
    ],
  })}`;
}

function totals(o: Overview): Html {
  const sum = (k: 'sends' | 'sent' | 'failed' | 'opened') => o.delivery.reduce((s, b) => s + b[k], 0);
  return html`<dl class="tiles" id="totals">
    ${tile('total-sends', 'Sends', count(sum('sends')))}
    ${tile('total-sent', 'Devices sent', count(sum('sent')))}
    ${tile('total-failed', 'Failed', count(sum('failed')))}
    ${tile('total-opened', 'Opened', count(sum('opened')))}
    ${tile('open-rate', 'Open rate', rate(sum('opened'), sum('sent')), 'opened of sent')}
  </dl>`;
}

export function overviewPage(o: Overview, now: Date): Html {
  const unit = unitWord(o.range);
  const x = `${unit === 'hour' ? 'Hour' : 'Day'} the sends started (UTC)`;
  const l = labels(o);
  return html`<h1>Overview</h1>
  <h2 id="devices-title">Devices</h2>
  ${devicesNow(o)}
  ${devicesChart(o, now)}
  <h2 id="delivery-title">Sends and delivery</h2>
  <nav class="tabs range-picker" aria-label="Range">${RANGE_NAMES.map((r) => html`<a href="/dashboard/?range=${r}" ${r === o.range ? html`aria-current="page"` : ''}>${RANGES[r].label}</a>`)}</nav>
  <p class="note">The last ${RANGES[o.range].label.replace(' h', ' hours').replace(' d', ' days')}, per ${unit}. A send's figures count in the ${unit} it started; its opens as the app reports them.</p>
  ${totals(o)}
  <h3>Sends per ${unit}</h3>
  ${timeChart({ id: 'sends-chart', title: `Sends per ${unit}`, xTitle: x, yTitle: 'Sends', labels: l, series: [{ name: 'Sends', kind: 'bar', tone: 1, values: o.delivery.map((b) => b.sends) }] })}
  <h3>Devices sent, failed and opened per ${unit}</h3>
  ${timeChart({
    id: 'delivery-chart', title: `Devices sent, failed and opened per ${unit}`, xTitle: x, yTitle: 'Devices', labels: l,
    series: [
      { name: 'Sent', kind: 'bar', tone: 1, values: o.delivery.map((b) => b.sent) },
      { name: 'Failed', kind: 'bar', tone: 3, values: o.delivery.map((b) => b.failed) },
      { name: 'Opened', kind: 'bar', tone: 2, values: o.delivery.map((b) => b.opened) },
    ],
  })}
  <h3>Open rate per ${unit}</h3>
  ${timeChart({ id: 'open-rate-chart', title: `Open rate per ${unit} (opened of sent)`, xTitle: x, yTitle: 'Opened of sent', percent: true, labels: l,
    series: [{ name: 'Open rate', kind: 'line', tone: 1, values: o.delivery.map((b) => (b.sent ? (b.opened / b.sent) * 100 : null)) }] })}
  <h3>Why devices failed</h3>
  ${barList({
    id: 'reasons-chart', title: `Failed devices by Apple's reason, sends of the last ${RANGES[o.range].label}`, nameTitle: 'Reason', valueTitle: 'Failed devices',
    rows: o.reasons.map((r) => ({ name: r.reason, value: r.devices })),
    empty: `No device failed in the sends of the last ${RANGES[o.range].label} that have finished.`,
  })}
  <p class="note">Reasons are counted when a send finishes: a running send's show once it ends.</p>`;
}
