// A list page's count line and its links (first, next): the users, installs, templates and events
// pages are read a page at a time, never whole.
import { html, type Html } from '../html.js';
import { count } from './format.js';

export const plural = (n: number, one: string, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`;

export interface Paging {
  total: number;
  /** Rows before this page (its first row is number from + 1). */
  from: number;
  /** The next page's query, when there is one. */
  next?: string;
  /** Whether this is a later page (a link back to the first). */
  later: boolean;
}

export function pager(base: string, shown: number, noun: string, p: Paging): Html {
  return html`<p id="total" aria-live="polite">${p.total === 0
    ? `No ${noun}s.`
    : html`${shown ? `${count(p.from + 1)}–${count(p.from + shown)} of ` : 'None here, of '}<strong>${plural(p.total, noun)}</strong>`}</p>
  ${p.later || p.next ? html`<nav class="pager" aria-label="Pages">
    ${p.later ? html`<a href="${base}">First page</a>` : ''}
    ${p.next ? html`<a href="${base}${base.includes('?') ? '&' : '?'}${p.next}" rel="next">Next page</a>` : ''}
  </nav>` : ''}`;
}

