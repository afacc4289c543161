// The bus's only part in delivery: a "work available" nudge on core NATS (no stream, no ack),
// published after a commit that made chunks claimable (a send accepted, fired, planned, a zone
// released). An idle sender waits for it, or for its poll interval, whichever comes first, so a
// lost nudge (NATS down) costs at most one poll interval and never a send.
import type { Bus } from '../bus/jetstream.js';

const WAKE = 'wake.senders';

export function wakeSenders(bus: Pick<Bus, 'nc' | 'names'> | undefined): void {
  if (!bus) return;
  try {
    bus.nc.publish(bus.names.subject(WAKE));
  } catch {
    // Closed or reconnecting: the senders' poll finds the work.
  }
}

/** Calls `onWake` on every nudge until the returned function is called. */
export function subscribeWake(bus: Pick<Bus, 'nc' | 'names'>, onWake: () => void): () => void {
  const sub = bus.nc.subscribe(bus.names.subject(WAKE), { callback: () => onWake() });
  return () => sub.unsubscribe();
}
