// Parsing and windowing of `send_after` (DECISIONS "Time"). Written by hand rather than with
// Date.parse: Date.parse reads offset-less strings in the process's local zone and accepts
// implementation-specific forms, and the contract needs "no offset = UTC" on every host.

export interface ParsedSendAfter {
  /** The instant named. */
  date: Date;
  /** Offset from UTC written in the string, in minutes (0 when none was written). */
  offsetMinutes: number;
  /** Whether the string carried an offset (or Z/GMT/UTC). Without one the time is UTC. */
  hasOffset: boolean;
  /** The wall-clock time written, "HH:MM" (24 h): the time of day of `delayed_option: timezone`. */
  clock: string;
}

// Each regex below is free of ambiguous repetition (no two adjacent `\s*` that can share the
// same spaces), so matching is linear; `make lint-regex` checks it (a padded string
// once took seconds). The caller caps the string at 64 characters as well.
// 2026-11-24T14:00:00-07:00, 2026-11-24 14:00:00.123Z, 2015-09-24 14:00:00 GMT-0700
const ISO =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:\s*(Z|(?:GMT|UTC)(?:\s*[+-]\d{2}(?::?\d{2})?)?|[+-]\d{2}(?::?\d{2})?))?$/;
// Thu Sep 24 2015 14:00:00 GMT-0700 (PDT) — JavaScript's Date#toString, which OneSignal
// documents — and its shorter forms such as "Sept 24 2015 14:00:00 GMT-0700".
const TEXTUAL =
  /^(?:([A-Za-z]+),?\s+)?([A-Za-z]+)\.?\s+(\d{1,2}),?\s+(\d{4}),?\s+(\d{1,2}):(\d{2})(?::(\d{2}))?(?:\s*(Z|(?:GMT|UTC)(?:\s*[+-]\d{2}(?::?\d{2})?)?|[+-]\d{2}(?::?\d{2})?))?(?:\s*\([^()]*\))?$/;

/** The longest `send_after` read (the CRD's maxLength): a longer one is refused unparsed. */
export const MAX_SEND_AFTER_CHARS = 64;

const MONTHS = [
  'january', 'february', 'march', 'april', 'may', 'june',
  'july', 'august', 'september', 'october', 'november', 'december',
];
const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

/** "Sep", "Sept" and "September" name the same month; at least three letters. */
function nameIndex(word: string, names: string[]): number {
  const w = word.toLowerCase();
  if (w.length < 3) return -1;
  return names.findIndex((name) => name.startsWith(w));
}

function parseOffset(text: string | undefined): { minutes: number; given: boolean } | undefined {
  if (text === undefined) return { minutes: 0, given: false };
  const t = text.replace(/^(?:GMT|UTC)\s*/, '');
  if (t === '' || t === 'Z') return { minutes: 0, given: true };
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(t);
  if (!m) return undefined;
  const hours = Number(m[2]);
  const minutes = Number(m[3] ?? '0');
  if (hours > 14 || minutes > 59) return undefined;
  return { minutes: (m[1] === '-' ? -1 : 1) * (hours * 60 + minutes), given: true };
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function build(
  year: number, month: number, day: number, hour: number, minute: number, second: number,
  fraction: string | undefined, offsetText: string | undefined,
): ParsedSendAfter | undefined {
  if (year < 1970 || month < 1 || month > 12) return undefined;
  if (day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const offset = parseOffset(offsetText);
  if (!offset) return undefined;
  const ms = fraction === undefined ? 0 : Math.floor(Number(`0.${fraction}`) * 1000);
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, ms) - offset.minutes * 60_000;
  const pad = (n: number) => String(n).padStart(2, '0');
  return {
    date: new Date(utc),
    offsetMinutes: offset.minutes,
    hasOffset: offset.given,
    clock: `${pad(hour)}:${pad(minute)}`,
  };
}

/** Parses a `send_after` string; undefined when it is not one of the accepted forms. */
export function parseSendAfter(text: string): ParsedSendAfter | undefined {
  const s = text.trim();
  let m = ISO.exec(s);
  if (m) {
    return build(
      Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6] ?? '0'),
      m[7], m[8],
    );
  }
  m = TEXTUAL.exec(s);
  if (m) {
    if (m[1] !== undefined && nameIndex(m[1], WEEKDAYS) < 0) return undefined;
    const month = nameIndex(m[2], MONTHS);
    if (month < 0) return undefined;
    // The weekday, when written, is not checked against the date: Date#toString output is
    // always consistent, and a mismatch in a hand-written string is not worth refusing.
    return build(
      Number(m[4]), month + 1, Number(m[3]), Number(m[5]), Number(m[6]), Number(m[7] ?? '0'),
      undefined, m[8],
    );
  }
  return undefined;
}

/** Up to this far in the past, `send_after` means "now" (DECISIONS "Time"). */
export const SEND_AFTER_PAST_GRACE_MS = 60_000;
/** Further ahead than this, `send_after` is refused. */
export const SEND_AFTER_MAX_AHEAD_MS = 30 * 24 * 60 * 60 * 1000;

export type SendAfterWindow =
  | { kind: 'now' } // at most 60 s in the past: an immediate send
  | { kind: 'at'; date: Date } // scheduled
  | { kind: 'past' } // more than 60 s in the past
  | { kind: 'too_far' }; // more than 30 days ahead

/** Places an instant in the accepted window around `now` (both bounds inclusive). */
export function sendAfterWindow(date: Date, now: Date): SendAfterWindow {
  const ahead = date.getTime() - now.getTime();
  if (ahead < -SEND_AFTER_PAST_GRACE_MS) return { kind: 'past' };
  if (ahead <= 0) return { kind: 'now' };
  if (ahead > SEND_AFTER_MAX_AHEAD_MS) return { kind: 'too_far' };
  return { kind: 'at', date };
}
