// Small display rules shared by the dashboard pages: names of sources and statuses, times, rates.
import type { NotificationReport } from '../../../core/send/report.js';
import type { SendSource } from '../../../core/formats/send-source.js';
import type { LIST_STATUSES } from '../../../core/send/list-query.js';
import { html, type Html } from '../html.js';

export const SOURCE_NAMES: Record<SendSource, string> = { api: 'API', kubernetes: 'Kubernetes', dashboard: 'Dashboard' };

/**
 * The status as a person reads it. Only the view maps: the REST statuses stay the contract's
 * (approved, draft, …). A canceled send is Canceled whatever status it ended in.
 */
export type StatusWord = 'Delivered' | 'Sending' | 'Scheduled' | 'Canceled' | 'Not sent';
const WORDS: Record<NotificationReport['status'], StatusWord> = {
  approved: 'Delivered', sending: 'Sending', queued: 'Sending', scheduled: 'Scheduled', draft: 'Not sent',
};
export const statusName = (n: Pick<NotificationReport, 'status' | 'canceled'>): StatusWord => (n.canceled ? 'Canceled' : WORDS[n.status]);
/** The CSS class of a status word (its colour). */
export const statusClass = (n: Pick<NotificationReport, 'status' | 'canceled'>) => `status status-${statusName(n).toLowerCase().replace(' ', '-')}`;
/** The filter's words for the REST statuses (the query keeps the REST value), in the select's order; one for each status. */
const FILTER_WORD: Record<(typeof LIST_STATUSES)[number], string> = {
  approved: 'Delivered', sending: 'Sending', queued: 'Queued to send', scheduled: 'Scheduled', canceled: 'Canceled', draft: 'Not sent',
};
export const FILTER_WORDS = Object.entries(FILTER_WORD);

/** Unix seconds as "2026-11-22 17:05 UTC" (the dashboard shows UTC, as send_after is read); no-break spaces keep it on one line. */
export const when = (seconds: number | null, zone = true) =>
  seconds === null ? '—' : `${new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', '\u00a0')}${zone ? '\u00a0UTC' : ''}`;

export const rate = (part: number, whole: number) => (whole > 0 ? `${((part / whole) * 100).toFixed(1)}%` : '—');

export const count = (n: number) => n.toLocaleString('en-US');

export function duration(from: number, to: number | null): string {
  if (to === null) return '—';
  const s = Math.max(0, to - from);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** The scheduled time, when it differs from the creation time. */
export const scheduledFor = (n: NotificationReport) => (n.send_after > n.queued_at + 1 ? when(n.send_after, false) : undefined);

/**
 * An address that wraps where a reader expects it to, never inside a word: a line may break after
 * a slash, and before a dot, ?, &, =, #, - or _ (the usual rule for URLs in print). A part longer
 * than its line still breaks (CSS overflow-wrap: break-word), as it must to fit.
 */
export function breakableUrl(url: string): Html {
  const parts = url.split(/(?<=\/)(?!\/)|(?=[.?&=#_-])/);
  return html`${parts.map((p, i) => html`${i ? html`<wbr>` : ''}${p}`)}`;
}
