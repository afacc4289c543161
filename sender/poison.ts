// A poison chunk: one started `maxChunkStarts` times without ever being recorded (its senders died
// or failed before the record, whatever the cause; a throttle hand-back is no start, and a start
// that never asked Apple is given back: lease.ts). That start does not send: the chunk is recorded
// with its devices failed (RedeliveryExhausted), so it is counted, never looped on or dropped, and
// each device it loaded is a message.push.failed event with that reason, recorded in the chunk's
// transaction like any failure (docs/events.md).
import type { Logger } from '../core/log.js';
import type { ClaimedChunk } from '../core/delivery/claim.js';
import type { ChunkDevices, ChunkOutcome } from '../core/delivery/chunks.js';
import type { SenderMetrics } from './metrics.js';

export function isPoison(claimed: Pick<ClaimedChunk, 'claims'>, maxChunkStarts: number): boolean {
  return claimed.claims >= maxChunkStarts;
}

/** The poison chunk's record: its devices failed, the rest of its planned entries skipped. */
export function poisonOutcome(claimed: Pick<ClaimedChunk, 'claims' | 'planned'>, loaded: ChunkDevices, log: Logger, metrics: SenderMetrics): ChunkOutcome {
  const reached = new Set(loaded.devices.map((d) => d.entry));
  const failed = loaded.entries.filter((e) => reached.has(e)).length;
  log.error({ claims: claimed.claims, failed }, 'chunk started too many times without a record; its devices are recorded failed');
  metrics.chunks.inc({ result: 'exhausted' });
  metrics.deliveries.inc({ outcome: 'failed', reason: 'RedeliveryExhausted' }, failed);
  // Its history says so too: each install it loaded failed, with the same reason.
  const seqs = loaded.devices.flatMap((d) => (d.seq === undefined ? [] : [d.seq]));
  const history = seqs.length ? { history: { sent: [], failed: seqs, reasons: seqs.map(() => 'RedeliveryExhausted'), unsubscribed: [] } } : {};
  const failedFor = loaded.devices.map((d) => ({ subscriptionId: d.subscriptionId, reason: 'RedeliveryExhausted' }));
  return { sent: 0, failed, skipped: Math.max(0, claimed.planned - failed), leftOut: 0, unsubscribe: [], failedFor, ...history };
}
