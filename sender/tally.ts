// Counting a chunk: what each device's final action makes of its audience entry, for the record
// (core/delivery/chunks.ts recordChunk), and of each device, for the deliveries metric.
import type { ChunkHistory, ChunkOutcome, Device } from '../core/delivery/chunks.js';
import type { Action } from './outcomes.js';
import type { SenderMetrics } from './metrics.js';

/**
 * Counts a chunk by audience entry: a device for segment and tag sends, a given id for lists (an
 * external id may name several installs: sent when any was accepted, else failed when any was
 * refused, else left out; an entry with no subscribed install is skipped).
 */
export function tally(planned: number, devices: Device[], actions: Action[]): ChunkOutcome {
  const rank = { sent: 3, failed: 2, unsubscribe: 2, retry: 2, hold: 2, stop: 1 } as const;
  const best = new Map<string, Action['kind']>();
  // The platform of the install that decided each entry's outcome: the entry counts under it.
  const bestPlatform = new Map<string, Device['platform']>();
  const unsubscribe: ChunkOutcome['unsubscribe'] = [];
  // Each install's own outcome, for its events (core/events/record.ts); a left-out one has none.
  const sentTo: string[] = [];
  const failedFor: NonNullable<ChunkOutcome['failedFor']> = [];
  // The same outcomes by install seq, for the send's history (an install's token only: a Live
  // Activity token has no seq and keeps none).
  const history: ChunkHistory = { sent: [], failed: [], reasons: [], unsubscribed: [] };
  devices.forEach((d, i) => {
    const a = actions[i];
    if (a.kind === 'unsubscribe') unsubscribe.push({ subscriptionId: d.subscriptionId, token: d.token, reason: a.reason, appleTimestampMs: a.appleTimestampMs });
    else if (a.kind === 'sent') sentTo.push(d.subscriptionId);
    else if (a.kind !== 'stop') failedFor.push({ subscriptionId: d.subscriptionId, reason: a.reason });
    if (d.seq !== undefined && a.kind !== 'stop') {
      if (a.kind === 'sent') history.sent.push(d.seq);
      else {
        history.failed.push(d.seq);
        history.reasons.push(a.reason);
        if (a.kind === 'unsubscribe') history.unsubscribed.push(d.seq);
      }
    }
    const prev = best.get(d.entry);
    if (!prev || rank[a.kind] > rank[prev]) {
      best.set(d.entry, a.kind);
      bestPlatform.set(d.entry, d.platform);
    }
  });
  let sent = 0;
  let failed = 0;
  let leftOut = 0;
  const android = { sent: 0, failed: 0 };
  for (const [entry, kind] of best) {
    const onAndroid = bestPlatform.get(entry) === 'android';
    if (kind === 'sent') {
      sent++;
      if (onAndroid) android.sent++;
    } else if (kind === 'stop') leftOut++;
    else {
      failed++;
      if (onAndroid) android.failed++;
    }
  }
  // Entries planned but not found now (unsubscribed since the plan, unknown ids) are skipped.
  const kept = devices.some((d) => d.seq !== undefined);
  return {
    sent, failed, skipped: Math.max(0, planned - best.size), leftOut, unsubscribe, sentTo, failedFor,
    ...(android.sent || android.failed ? { android } : {}),
    ...(kept ? { history } : {}),
  };
}

/** herald_sender_deliveries_total: each device's final outcome, with Apple's reason. */
export function countDeliveries(metrics: SenderMetrics, actions: Action[]): void {
  for (const a of actions) {
    const outcome = a.kind === 'sent' ? 'sent' : a.kind === 'unsubscribe' ? 'unsubscribed' : a.kind === 'stop' ? 'left_out' : 'failed';
    metrics.deliveries.inc({ outcome, reason: a.kind === 'sent' ? '' : a.reason });
  }
}
