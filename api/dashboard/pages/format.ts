// Small display rules shared by the dashboard pages: names of sources and statuses, times, rates.
import type { NotificationReport, SendSource } from '../../../core/send/report.js';

export const SOURCE_NAMES: Record<SendSource, string> = { api: 'API', kubernetes: 'Kubernetes', dashboard: 'Dashboard' };

export const statusName = (n: Pick<NotificationReport, 'status' | 'canceled'>) => (n.canceled ? `${n.status} (canceled)` : n.status);

/** Unix seconds as "2026-11-22 17:05 UTC" (the dashboard shows UTC, as send_after is read). */
export const when = (seconds: number | null) =>
  seconds === null ? '—' : `${new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

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
export const created = (n: NotificationReport) => (n.send_after > n.queued_at + 1 ? `${when(n.queued_at)} · for ${when(n.send_after)}` : when(n.queued_at));
