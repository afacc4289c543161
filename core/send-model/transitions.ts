// The one table of a send's states and transitions (contract "States and transitions", plus ours:
// schedules, time zones, pause, refused credentials, cancel). Every status a send takes and every
// sentence of its `message` is decided here, by the first row whose from, event and guard match;
// `writeTransition` is the only UPDATE of `sends.status` (the accept INSERT writes the value the
// table gave for `accept`). core/send-model/transitions.test.ts walks every row. The statuses and their
// groups: states.ts. A leaf: it imports nothing from core/delivery, which writes through it.
import type { Queryable } from '../store/db.js';
import { isFinalStatus, statusesIn, type SendStatus } from './states.js';

/** `new`: a send being accepted (no row yet). */
export type From = SendStatus | 'new';
export type StopReason = 'paused' | 'credentials' | 'canceled' | 'disabled';

export type SendEvent =
  | 'accept' // POST /notifications or a Send object: the first status
  | 'fire' // a scheduled send's time came (scheduler, each send in its own transaction)
  | 'fire_failed' // firing it threw (e.g. its custom segment was removed): it becomes a draft, never jams the rest
  | 'plan_failed' // planning a segment or tag send threw (e.g. its custom segment was removed)
  | 'chunk_started' // a sender claimed a chunk
  | 'finished'; // every chunk recorded or left out (a stopped send: the last in flight recorded)

/** What the guards and messages read. Counts are the send's at that moment. */
export interface Facts {
  broadcast?: boolean; // segment or tag target
  hasCredentials?: boolean;
  halted?: 'paused' | 'disabled'; // the app may not send now (core/apps/sendable.ts): why
  scheduledFor?: string; // send_after (ISO) or "HH:MM in each device's time zone" at accept
  timezone?: string; // delayed_option: timezone, its time of day, at firing
  lastActive?: boolean; // delayed_option: last-active, at firing
  audience?: number; // devices measured (accept, fire)
  sent?: number;
  failed?: number;
  skipped?: number;
  leftOut?: number;
  stopped?: StopReason | null;
  /** Why: Apple's reason for refused credentials, or the error that kept a schedule from firing. */
  detail?: string | null;
}

export interface Transition {
  from: From[];
  event: SendEvent;
  guard: (f: Facts) => boolean;
  /** 'same': the status does not change (a timezone send stays scheduled while it delivers). */
  to: SendStatus | 'same';
  /** undefined: the message stays as it was. */
  message?: (f: Facts) => string;
}

const n = (count = 0) => `${count.toLocaleString('en-US')} device${count === 1 ? '' : 's'}`;
const reached = (f: Facts) => (f.sent ?? 0) > 0;
const always = () => true;
const RUNNING: From[] = statusesIn('running');
const UNDERWAY: From[] = statusesIn('underway');

const NO_CREDENTIALS = "Saved as a draft and not sent: the app has no push key or certificate for Apple's gateway.";
const EMPTY = 'This notification reached no one: the audience is empty.';
const DISABLED_WHY = 'the app was deleted or disabled.';
const DISABLED = `Not sent: ${DISABLED_WHY}`;
const queued = (f: Facts) => `Queued for ${n(f.audience)}; delivery goes on in the background.`;
const sending = (f: Facts) => `Sending to ${n(f.audience)}.`;
const refused = (f: Facts) => `Apple's gateway refused the app's push key or certificate${f.detail ? ` (${f.detail})` : ''}. Fix the app's credentials and send again.`;

export const TRANSITIONS: readonly Transition[] = [
  // Accept (contract rows "(none) → …").
  { from: ['new'], event: 'accept', guard: (f) => !f.hasCredentials, to: 'draft', message: () => NO_CREDENTIALS },
  { from: ['new'], event: 'accept', guard: (f) => !!f.scheduledFor, to: 'scheduled', message: (f) => `Scheduled for ${f.scheduledFor}, to ${n(f.audience)} as of now.` },
  { from: ['new'], event: 'accept', guard: (f) => !f.audience, to: 'approved', message: () => EMPTY },
  { from: ['new'], event: 'accept', guard: (f) => !!f.broadcast, to: 'queued', message: queued },
  { from: ['new'], event: 'accept', guard: always, to: 'sending', message: sending },

  // A scheduled send's time comes: the audience is measured again (DECISIONS "Time").
  { from: ['scheduled'], event: 'fire', guard: (f) => f.halted === 'disabled', to: 'draft', message: () => DISABLED },
  { from: ['scheduled'], event: 'fire', guard: (f) => f.halted === 'paused', to: 'draft', message: () => 'Not sent: delivery is paused until the invoice for the app is paid.' },
  { from: ['scheduled'], event: 'fire', guard: (f) => !f.hasCredentials, to: 'draft', message: () => NO_CREDENTIALS },
  { from: ['scheduled'], event: 'fire', guard: (f) => !f.audience, to: 'approved', message: () => EMPTY },
  { from: ['scheduled'], event: 'fire', guard: (f) => !!f.lastActive, to: 'same', message: (f) => `Going out to ${n(f.audience)}, each at the time of day it was last active (within 24 hours).` },
  { from: ['scheduled'], event: 'fire', guard: (f) => !!f.timezone, to: 'same', message: (f) => `Going out to ${n(f.audience)} at ${f.timezone} in each device's time zone.` },
  { from: ['scheduled'], event: 'fire', guard: (f) => !!f.broadcast, to: 'queued', message: queued },
  { from: ['scheduled'], event: 'fire', guard: always, to: 'sending', message: sending },
  { from: ['scheduled'], event: 'fire_failed', guard: always, to: 'draft', message: (f) => `Not sent at its scheduled time: ${f.detail ?? 'it could not be planned'}.` },

  // A send that cannot be planned ends at once, saying why; it never blocks the planning of others.
  { from: UNDERWAY, event: 'plan_failed', guard: always, to: 'draft', message: (f) => `Not sent: it could not be planned (${f.detail ?? 'unknown error'}).` },

  // Background delivery begins (a timezone send stays scheduled: no row matches, nothing moves).
  { from: ['queued'], event: 'chunk_started', guard: always, to: 'sending' },

  // The end: every device handled, or the send stopped (pause, refused credentials, cancel).
  { from: RUNNING, event: 'finished', guard: (f) => f.stopped === 'paused' && reached(f), to: 'approved', message: (f) => `Sent to ${n(f.sent)} before delivery paused: the app has an invoice past its due date. ${n(f.leftOut)} were not sent and will not be.` },
  { from: RUNNING, event: 'finished', guard: (f) => f.stopped === 'paused', to: 'draft', message: (f) => `Delivery paused: the app has an invoice past its due date. ${n(f.leftOut)} were not sent and will not be.` },
  { from: RUNNING, event: 'finished', guard: (f) => f.stopped === 'disabled' && reached(f), to: 'approved', message: (f) => `Sent to ${n(f.sent)}, then stopped: ${DISABLED_WHY} ${n(f.leftOut)} were not sent and will not be.` },
  { from: RUNNING, event: 'finished', guard: (f) => f.stopped === 'disabled', to: 'draft', message: (f) => `Not sent: ${DISABLED_WHY} ${n(f.leftOut)} were not sent and will not be.` },
  { from: RUNNING, event: 'finished', guard: (f) => f.stopped === 'canceled' && reached(f), to: 'approved', message: (f) => `Sent to ${n(f.sent)} before it was canceled; ${n(f.leftOut)} were not sent and will not be.` },
  { from: RUNNING, event: 'finished', guard: (f) => f.stopped === 'canceled', to: 'draft', message: (f) => `Canceled before any device was reached; ${n(f.leftOut)} were not sent and will not be.` },
  { from: RUNNING, event: 'finished', guard: (f) => f.stopped === 'credentials' && reached(f), to: 'approved', message: (f) => `Sent to ${n(f.sent)}, then stopped: ${refused(f)}` },
  { from: RUNNING, event: 'finished', guard: (f) => f.stopped === 'credentials', to: 'draft', message: (f) => `Saved as a draft and not sent: ${refused(f)}` },
  { from: RUNNING, event: 'finished', guard: reached, to: 'approved', message: (f) => `Sent to ${n(f.sent)}; ${f.failed ?? 0} failed, ${f.skipped ?? 0} skipped.` },
  { from: RUNNING, event: 'finished', guard: always, to: 'draft', message: (f) => `Not sent: the gateway accepted none of the devices (${f.failed ?? 0} failed, ${f.skipped ?? 0} skipped).` },
];

export interface Step {
  from: From;
  to: SendStatus;
  /** undefined: keep the current message. */
  message?: string;
  final: boolean;
}

/** The first row that applies, or undefined (the event changes nothing from this state). */
export function nextStep(from: From, event: SendEvent, facts: Facts): Step | undefined {
  const row = TRANSITIONS.find((t) => t.event === event && t.from.includes(from) && t.guard(facts));
  if (!row) return undefined;
  const to = row.to === 'same' ? (from as SendStatus) : row.to;
  return { from, to, message: row.message?.(facts), final: isFinalStatus(to) };
}

/**
 * Applies an event to a recorded send: the only UPDATE of sends.status. Conditional on the status
 * it was decided from, so a concurrent writer that moved the send first wins and this one is a
 * no-op (returns undefined). Runs in the caller's transaction when given one.
 */
export async function writeTransition(db: Queryable, sendId: number, from: SendStatus, event: SendEvent, facts: Facts): Promise<Step | undefined> {
  const step = nextStep(from, event, facts);
  if (!step) return undefined;
  const res = await db.query(
    `UPDATE sends SET status = $3, message = coalesce($4, message), updated_at = now(),
            finished_at = CASE WHEN $5 THEN now() ELSE finished_at END
      WHERE id = $1 AND status = $2`,
    [sendId, from, step.to, step.message ?? null, step.final],
  );
  return res.rowCount ? step : undefined;
}
