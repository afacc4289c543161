// An app's events on NATS JetStream, for in-cluster consumers (docs/events.md "The stream"). An
// App with `spec.events.stream: true` has one more row in event_destinations, named
// STREAM_DESTINATION: records are written for it as for a webhook destination, and the same
// dispatcher lanes serve it with the same lease, place and back-off (core/events/dispatcher.ts),
// so a killed sender or a NATS restart loses nothing and a NATS outage holds one lane at most 1 s
// (the dispatcher's patience), never a delivery to Apple or to a webhook.
//
// Each event is one message on `<prefix>.events.<app id>.<kind>` (the kind's dots make tokens:
// `herald.events.<app>.message.push.sent`; a consumer of one app takes `herald.events.<app>.>`),
// its body the same JSON as the event's element in a webhook batch, its `Nats-Msg-Id` the
// event's id: a batch published again after a crash is dropped by JetStream inside the stream's
// duplicate window.
import type { Bus } from '../bus/jetstream.js';
import type { HeraldEvent } from './expand.js';

/** The stream's row in event_destinations: not a DNS label, so no webhook destination can have its name. */
export const STREAM_DESTINATION = '@jetstream';
/** What the row holds in its url column (shown where destinations are listed; never requested). */
export const STREAM_URL = 'nats:jetstream';

/** An event's subject relative to the install's prefix (BusNames.subject adds it). */
export function eventSubject(appId: string, kind: string): string {
  return `events.${appId}.${kind}`;
}

/** The subjects of one app, for a consumer's filter (relative, as eventSubject). */
export function appEventsFilter(appId: string): string {
  return `events.${appId}.>`;
}

export interface StreamResult {
  /** 200 when JetStream stored (or already held) every event; 0 when not (the batch is retried). */
  status: number;
  error?: string;
}

/**
 * Publishes a batch's events in order and waits for JetStream's acknowledgements. The publishes
 * are written to the one connection in order without waiting for each other, so the stream holds
 * them in the batch's order; the batch counts only when every one was acknowledged (a duplicate
 * is an acknowledgement too).
 */
export async function publishEvents(bus: Bus | undefined, events: readonly HeraldEvent[]): Promise<StreamResult> {
  if (!bus) return { status: 0, error: 'this process has no NATS connection' };
  const acks = events.map((e) => bus.publish(eventSubject(e.event.app_id, e.event.kind), e, e.event.id));
  const settled = await Promise.allSettled(acks);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) return { status: 0, error: `NATS: ${failed.reason instanceof Error ? failed.reason.message : String(failed.reason)}` };
  return { status: 200 };
}
