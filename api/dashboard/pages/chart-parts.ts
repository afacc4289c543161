// What every dashboard chart shares: round axis steps, a number's short form, and the table view
// of a chart's numbers (issue 40: each chart has one, for screen readers and for reading exact
// figures). The charts are inline SVG drawn on the server (chart.ts, time-chart.ts, bar-list.ts).
import { html, type Html } from '../html.js';
import { count } from './format.js';

/** A round step of about a third of `max` (1, 2 or 5 times a power of ten). */
export function niceStep(max: number): number {
  const raw = Math.max(1, max / 3);
  const p = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) ?? raw;
}

/** The ticks of a value axis from 0 past `max`, and its top. */
export function valueTicks(max: number): { ticks: number[]; top: number } {
  const step = niceStep(Math.max(1, max));
  const top = Math.max(step, Math.ceil(Math.max(1, max) / step) * step);
  const ticks: number[] = [];
  for (let v = 0; v <= top; v += step) ticks.push(v);
  return { ticks, top };
}

/** One decimal at most: SVG coordinates. */
export const r1 = (n: number) => Math.round(n * 10) / 10;

export interface TableView {
  /** The chart's id: the table's is `${id}-table`. */
  id: string;
  caption: string;
  /** The first column's heading (the axis of the rows), then one per value column. */
  columns: string[];
  rows: Array<[label: string, ...values: Array<number | string>]>;
}

/** The chart's numbers as a table, folded under the chart (a screen reader opens it like any disclosure). */
export function tableView(t: TableView): Html {
  return html`<details class="chart-table"><summary>Table of these numbers</summary>
    <div class="table-wrap"><table id="${t.id}-table">
      <caption>${t.caption}</caption>
      <thead><tr>${t.columns.map((c, i) => html`<th scope="col" ${i ? html`class="num"` : ''}>${c}</th>`)}</tr></thead>
      <tbody>${t.rows.map(([label, ...values]) => html`<tr><th scope="row">${label}</th>${values.map((v) => html`<td class="num">${typeof v === 'number' ? count(v) : v}</td>`)}</tr>`)}</tbody>
    </table></div>
  </details>`;
}
