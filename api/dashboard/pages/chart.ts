// The delivery chart of a report: devices sent per second (bars) and in total (a line), over the
// seconds since the send started, with labelled axes, units and values. Inline SVG drawn on the
// server (a charting library would outweigh the dashboard); dashboard.js swaps in the new markup.
// Each point is the second its chunks finished in. A send done within a few seconds has no shape
// over time to draw (a line from nothing to everything): it is said in a sentence, with the
// seconds its chunks were recorded in. Every chart has its numbers in a table view.
import type { DeliveryPoint } from '../../../core/send/report.js';
import { html, toString, type Html } from '../html.js';
import { count } from './format.js';
import { niceStep, r1, tableView } from './chart-parts.js';

const W = 640;
const H = 230;
const L = 64; // room for the y axis' values
const R = 16;
const T = 16;
const B = 52; // room for the x axis' values and title
const PW = W - L - R;
const PH = H - T - B;


const timeLabel = (s: number, minutes: boolean) => (minutes ? `${Math.round((s / 60) * 10) / 10} min` : `${s} s`);

/** Below this many seconds from start to the last chunk, a send is summed up rather than drawn. */
export const SHORT_SEND_SECONDS = 5;

/** The points as a table: the second since the start, devices sent and failed in it. */
const secondsTable = (timeline: DeliveryPoint[], t0: number) =>
  tableView({ id: 'chart', caption: 'Devices sent and failed in each second since the send started', columns: ['Second', 'Sent', 'Failed'], rows: timeline.map((p) => [`${p.at - t0 + 1}`, p.sent, p.failed]) });

export function deliveryChart(timeline: DeliveryPoint[], start: number): Html {
  if (!timeline.length) return html`<p class="note" id="chart-note">No delivery yet.</p>`;
  const t0 = Math.min(start, timeline[0].at);
  const span = Math.max(1, timeline[timeline.length - 1].at + 1 - t0); // the last second counts whole
  const total = timeline.reduce((s, p) => s + p.sent, 0);
  if (span < SHORT_SEND_SECONDS) {
    const failed = timeline.reduce((s, p) => s + p.failed, 0);
    return html`<p id="chart-note" class="short-send"><strong>${count(total)} device${total === 1 ? '' : 's'} sent${failed ? `, ${count(failed)} failed,` : ''} within ${span} second${span === 1 ? '' : 's'} of the start</strong>: too quick a send to draw over time. The seconds its chunks were recorded in:</p>
      <div class="table-wrap"><table id="chart-seconds"><thead><tr><th scope="col">Second</th><th scope="col" class="num">Sent</th><th scope="col" class="num">Failed</th></tr></thead>
      <tbody>${timeline.map((p) => html`<tr><th scope="row">${p.at - t0 + 1}</th><td class="num">${count(p.sent)}</td><td class="num">${count(p.failed)}</td></tr>`)}</tbody></table></div>`;
  }
  const yStep = niceStep(Math.max(1, total));
  const yMax = Math.max(yStep, Math.ceil(Math.max(1, total) / yStep) * yStep);
  const minutes = span > 180;
  const xStep = niceStep(minutes ? span / 60 : span) * (minutes ? 60 : 1);
  const x = (s: number) => L + (s / span) * PW;
  const y = (n: number) => T + PH - (n / yMax) * PH;

  let sum = 0;
  const line = [`${L},${y(0)}`];
  const bars: Html[] = [];
  for (const p of timeline) {
    const s = p.at - t0;
    line.push(`${r1(x(s))},${r1(y(sum))}`);
    sum += p.sent;
    line.push(`${r1(x(s + 1))},${r1(y(sum))}`); // the second's deliveries, spread over it
    bars.push(html`<rect class="bar" x="${r1(x(s) + 0.5)}" y="${r1(y(p.sent))}" width="${r1(Math.max(1, x(s + 1) - x(s) - 1))}" height="${r1(y(0) - y(p.sent))}"><title>${count(p.sent)} sent in second ${s + 1}</title></rect>`);
  }
  const yTicks: number[] = [];
  for (let v = 0; v <= yMax; v += yStep) yTicks.push(v);
  const xTicks: number[] = [];
  for (let v = 0; v <= span; v += xStep) xTicks.push(v);
  if (xTicks[xTicks.length - 1] !== span) xTicks.push(span);
  const peak = Math.max(...timeline.map((p) => p.sent));
  return html`<svg class="chart" id="chart" viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="chart-title chart-note">
    <g class="grid">${yTicks.map((v) => html`<line x1="${L}" x2="${W - R}" y1="${r1(y(v))}" y2="${r1(y(v))}"></line>`)}</g>
    <g class="bars">${bars}</g>
    <polyline id="chart-line" class="total" points="${line.join(' ')}"></polyline>
    <g class="axis">
      <line x1="${L}" x2="${L}" y1="${T}" y2="${T + PH}"></line>
      <line x1="${L}" x2="${W - R}" y1="${T + PH}" y2="${T + PH}"></line>
      ${yTicks.map((v) => html`<text class="y-value" x="${L - 6}" y="${r1(y(v) + 4)}" text-anchor="end">${count(v)}</text>`)}
      ${xTicks.map((v) => html`<text class="x-value" x="${r1(x(v))}" y="${T + PH + 16}" text-anchor="middle">${timeLabel(v, minutes)}</text>`)}
      <text class="axis-title" x="${L + PW / 2}" y="${H - 8}" text-anchor="middle">Time since the send started (${minutes ? 'minutes' : 'seconds'})</text>
      <text class="axis-title" transform="translate(14 ${T + PH / 2}) rotate(-90)" text-anchor="middle">Devices</text>
    </g>
    <text class="end-value" x="${r1(Math.min(x(span), W - R - 4))}" y="${r1(Math.max(T + 12, y(total) - 6))}" text-anchor="end">${count(total)} sent</text>
  </svg>
  <p class="note" id="chart-note"><span class="key total"></span> devices sent in total; <span class="key bar"></span> sent in each second. ${count(total)} devices sent, at most ${count(peak)} in one second.</p>
  ${secondsTable(timeline, t0)}`;
}

export const deliveryChartMarkup = (timeline: DeliveryPoint[], start: number) => toString(deliveryChart(timeline, start));
