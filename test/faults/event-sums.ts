// The sum the event-stream fault tests assert (issue 28): whatever happened on the way, a
// destination took every event its sends' facts give at least once, each fact as exactly one
// event id (a fact recorded twice, e.g. a chunk recorded again after a crash, would be two ids),
// an event delivered again is the same event, and each send's finished event carries the counts
// the API shows. Repeats of an event id are at-least-once's: counted and returned, for the caller
// to bound by the faults it caused.
import { expect } from 'chai';
import type { HeraldEvent } from '../../core/events/expand.js';

export interface ExpectedSend {
  id: number;
  /** Installs Apple accepted: one message.push.sent each. */
  sent: string[];
  /** Installs Apple refused for good (410): message.push.failed and subscription.push.unsubscribed each. */
  gone?: string[];
  /** The send's counts as the API answers them. */
  stats: { sent: number; failed: number; skipped: number };
}

const factOf = (e: HeraldEvent) => `${e.message?.id} ${e.event.kind} ${e.subscription?.id ?? '-'}`;
const sample = (keys: string[]) => `${keys.length} (${keys.slice(0, 5).join('; ')}${keys.length > 5 ? '; …' : ''})`;

/** Asserts the sum over `events` (everything the destination accepted, repeats included); returns the repeats. */
export function expectEveryEvent(label: string, events: readonly HeraldEvent[], appId: string, sends: readonly ExpectedSend[]): { duplicates: number } {
  const byId = new Map<string, HeraldEvent>();
  for (const e of events) {
    const first = byId.get(e.event.id);
    if (first) expect(e, `${label}: event ${e.event.id} delivered again with other content`).to.deep.equal(first);
    else byId.set(e.event.id, e);
  }
  const facts = new Map<string, HeraldEvent[]>();
  for (const e of byId.values()) {
    expect(e.event.app_id, `${label}: an event of another app`).to.equal(appId);
    facts.set(factOf(e), [...(facts.get(factOf(e)) ?? []), e]);
  }
  const expected = new Set<string>();
  for (const s of sends) {
    expected.add(`${s.id} notification.created -`).add(`${s.id} notification.finished -`);
    for (const id of s.sent) expected.add(`${s.id} message.push.sent ${id}`);
    for (const id of s.gone ?? []) expected.add(`${s.id} message.push.failed ${id}`).add(`${s.id} subscription.push.unsubscribed ${id}`);
  }
  const missing = [...expected].filter((k) => !facts.has(k));
  const unexpected = [...facts.keys()].filter((k) => !expected.has(k));
  const twice = [...facts].filter(([, es]) => es.length > 1).map(([k]) => k);
  expect(missing, `${label}: events lost: ${sample(missing)}`).to.have.length(0);
  expect(unexpected, `${label}: events of no expected fact: ${sample(unexpected)}`).to.have.length(0);
  expect(twice, `${label}: facts recorded as two events: ${sample(twice)}`).to.have.length(0);
  for (const s of sends) {
    const finished = facts.get(`${s.id} notification.finished -`)![0].notification;
    const counts = { sent: s.sent.length, failed: s.gone?.length ?? 0, skipped: 0 };
    expect(s.stats, `${label}: send ${s.id}'s counts`).to.include(counts);
    expect(finished, `${label}: send ${s.id}'s finished event`).to.include({ status: 'approved', ...counts, left_out: 0, stopped: null });
  }
  return { duplicates: events.length - byId.size };
}
