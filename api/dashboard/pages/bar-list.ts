// A chart of named counts, largest first, as horizontal bars (the overview's failure reasons):
// the names on one axis, the devices on the other, both titled, and the same numbers in a table
// view (chart-parts.ts). Inline SVG drawn on the server.
import { html, type Html } from '../html.js';
import { count } from './format.js';
import { r1, tableView, valueTicks } from './chart-parts.js';

const W = 640;
const L = 200; // room for the names
const R = 56;
const T = 8;
const ROW = 26;
const B = 44;
const PW = W - L - R;

export interface BarListSpec {
  id: string;
  title: string;
  /** The axis of the names, and of the values. */
  nameTitle: string;
  valueTitle: string;
  rows: Array<{ name: string; value: number }>;
  /** What the chart says when there is nothing to draw. */
  empty: string;
}

export function barList(c: BarListSpec): Html {
  if (!c.rows.length) return html`<p class="note" id="${c.id}">${c.empty}</p>`;
  const { ticks, top } = valueTicks(Math.max(...c.rows.map((r) => r.value)));
  const H = T + c.rows.length * ROW + B;
  const x = (v: number) => L + (v / top) * PW;
  const bottom = T + c.rows.length * ROW;
  return html`<figure class="chart-figure" id="${c.id}">
    <svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="${c.title}: the table below holds its numbers">
      <g class="grid">${ticks.map((v) => html`<line x1="${r1(x(v))}" x2="${r1(x(v))}" y1="${T}" y2="${bottom}"></line>`)}</g>
      ${c.rows.map((r, i) => html`<text class="bar-name" x="${L - 8}" y="${T + i * ROW + ROW / 2 + 4}" text-anchor="end">${r.name.length > 28 ? `${r.name.slice(0, 27)}…` : r.name}</text>
        <rect class="tone-3" x="${L}" y="${T + i * ROW + 4}" width="${r1(Math.max(1, x(r.value) - L))}" height="${ROW - 8}"><title>${r.name}: ${count(r.value)}</title></rect>
        <text class="bar-value" x="${r1(x(r.value) + 4)}" y="${T + i * ROW + ROW / 2 + 4}">${count(r.value)}</text>`)}
      <g class="axis">
        <line x1="${L}" x2="${L}" y1="${T}" y2="${bottom}"></line>
        <line x1="${L}" x2="${W - R}" y1="${bottom}" y2="${bottom}"></line>
        ${ticks.map((v) => html`<text class="x-value" x="${r1(x(v))}" y="${bottom + 16}" text-anchor="middle">${count(v)}</text>`)}
        <text class="axis-title" x="${L + PW / 2}" y="${H - 6}" text-anchor="middle">${c.valueTitle}</text>
        <text class="axis-title" x="8" y="${T + 10}">${c.nameTitle}</text>
      </g>
    </svg>
    ${tableView({ id: c.id, caption: c.title, columns: [c.nameTitle, c.valueTitle], rows: c.rows.map((r) => [r.name, r.value]) })}
  </figure>`;
}
