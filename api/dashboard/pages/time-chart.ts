// A chart over the buckets of a time range (the overview's: devices by state per day, sends per hour
// or day, devices sent, failed and opened, the open rate): bars, stacked or side by side, and lines,
// with both axes titled, round value ticks, a legend, and the same numbers in a table view
// (chart-parts.ts). Inline SVG drawn on the server, as the report's delivery chart.
import { html, type Html } from '../html.js';
import { count } from './format.js';
import { r1, tableView, valueTicks } from './chart-parts.js';

const W = 640;
const H = 240;
const L = 64;
const R = 16;
const T = 16;
const B = 52;
const PW = W - L - R;
const PH = H - T - B;
/** At most this many labels under the x axis (one every few buckets on 24 hours or 30 days). */
const MAX_X_LABELS = 8;

export interface TimeSeries {
  name: string;
  kind: 'bar' | 'line';
  /** The series' colour (dashboard.css .tone-1 …). */
  tone: 1 | 2 | 3 | 4;
  /** One per bucket; null: no value (a rate of nothing), a gap in the line and "—" in the table. */
  values: Array<number | null>;
}

export interface TimeChartSpec {
  id: string;
  /** What the chart shows, for its accessible name and the table's caption. */
  title: string;
  xTitle: string;
  /** Each bucket's name: short under the axis, whole in the table. */
  labels: Array<{ short: string; long: string }>;
  yTitle: string;
  series: TimeSeries[];
  /** Bars stacked (parts of one whole), else side by side. */
  stacked?: boolean;
  /** Values are percentages. */
  percent?: boolean;
}

const shown = (v: number | null, percent?: boolean) => (v === null ? '—' : percent ? `${v.toFixed(1)}%` : count(v));

export function timeChart(c: TimeChartSpec): Html {
  const n = c.labels.length;
  const bars = c.series.filter((s) => s.kind === 'bar');
  const lines = c.series.filter((s) => s.kind === 'line');
  const heights = c.labels.map((_, i) => (c.stacked ? [bars.reduce((sum, s) => sum + (s.values[i] ?? 0), 0)] : bars.map((s) => s.values[i] ?? 0)));
  const max = Math.max(0, ...heights.flat(), ...lines.flatMap((s) => s.values.map((v) => v ?? 0)));
  const { ticks, top } = valueTicks(c.percent ? Math.min(100, max) : max);
  const slot = PW / n;
  const x = (i: number) => L + i * slot;
  const y = (v: number) => T + PH - (Math.min(v, top) / top) * PH;
  const barWidth = Math.max(1, (slot * 0.7) / (c.stacked ? 1 : Math.max(1, bars.length)));
  const rects: Html[] = [];
  c.labels.forEach((label, i) => {
    let base = 0;
    bars.forEach((s, j) => {
      const v = s.values[i] ?? 0;
      const left = x(i) + slot * 0.15 + (c.stacked ? 0 : j * barWidth);
      const from = c.stacked ? base : 0;
      if (v > 0) rects.push(html`<rect class="tone-${s.tone}" x="${r1(left)}" y="${r1(y(from + v))}" width="${r1(barWidth)}" height="${r1(y(from) - y(from + v))}"><title>${s.name}, ${label.long}: ${shown(v, c.percent)}</title></rect>`);
      base += v;
    });
  });
  const polylines = lines.map((s) => {
    // A null value breaks the line: each run of values is its own polyline.
    const runs: string[][] = [[]];
    s.values.forEach((v, i) => (v === null ? runs.push([]) : runs.at(-1)!.push(`${r1(x(i) + slot / 2)},${r1(y(v))}`)));
    return runs.filter((r) => r.length).map((r) => html`<polyline class="line tone-${s.tone}" points="${r.join(' ')}"></polyline>
      ${r.length === 1 ? html`<circle class="tone-${s.tone}" cx="${r[0].split(',')[0]}" cy="${r[0].split(',')[1]}" r="3"></circle>` : ''}`);
  });
  const every = Math.ceil(n / MAX_X_LABELS);
  return html`<figure class="chart-figure" id="${c.id}">
    <svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="${c.title}: the table below holds its numbers">
      <g class="grid">${ticks.map((v) => html`<line x1="${L}" x2="${W - R}" y1="${r1(y(v))}" y2="${r1(y(v))}"></line>`)}</g>
      <g class="bars">${rects}</g>
      <g class="lines">${polylines}</g>
      <g class="axis">
        <line x1="${L}" x2="${L}" y1="${T}" y2="${T + PH}"></line>
        <line x1="${L}" x2="${W - R}" y1="${T + PH}" y2="${T + PH}"></line>
        ${ticks.map((v) => html`<text class="y-value" x="${L - 6}" y="${r1(y(v) + 4)}" text-anchor="end">${c.percent ? `${v}%` : count(v)}</text>`)}
        ${c.labels.map((l, i) => ((n - 1 - i) % every === 0 ? html`<text class="x-value" x="${r1(x(i) + slot / 2)}" y="${T + PH + 16}" text-anchor="middle">${l.short}</text>` : ''))}
        <text class="axis-title" x="${L + PW / 2}" y="${H - 8}" text-anchor="middle">${c.xTitle}</text>
        <text class="axis-title" transform="translate(14 ${T + PH / 2}) rotate(-90)" text-anchor="middle">${c.yTitle}</text>
      </g>
    </svg>
    <figcaption class="legend">${c.series.map((s) => html`<span class="key-item"><span class="key ${s.kind} tone-${s.tone}"></span> ${s.name}</span>`)}</figcaption>
    ${tableView({
      id: c.id,
      caption: c.title,
      columns: [c.xTitle, ...c.series.map((s) => s.name)],
      rows: c.labels.map((l, i) => [l.long, ...c.series.map((s) => (s.values[i] === null || c.percent ? shown(s.values[i], c.percent) : s.values[i]!))]),
    })}
  </figure>`;
}
