// Clock times in a device's time zone (DECISIONS "Time": `delayed_option: timezone`). Offsets come
// from Intl.DateTimeFormat with `timeZone` (the IANA data that ships with Node), computed once per
// distinct zone of an audience, never per device.

const formatters = new Map<string, Intl.DateTimeFormat | null>();

function formatter(zone: string): Intl.DateTimeFormat | null {
  let f = formatters.get(zone);
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      f = null; // not a zone this runtime knows
    }
    if (formatters.size > 2000) formatters.clear();
    formatters.set(zone, f);
  }
  return f;
}

/** Whether `zone` is an IANA time zone this runtime knows. */
export function knownTimeZone(zone: string | null | undefined): zone is string {
  return typeof zone === 'string' && zone.length > 0 && formatter(zone) !== null;
}

/** The zone's UTC offset in minutes (east positive) at the instant `at`. Throws for an unknown zone. */
export function zoneOffsetMinutes(zone: string, at: Date): number {
  const f = formatter(zone);
  if (!f) throw new RangeError(`unknown time zone ${zone}`);
  const parts: Record<string, number> = {};
  for (const p of f.formatToParts(at)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  const wall = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
  const whole = at.getTime() - (at.getTime() % 1000 + 1000) % 1000; // the formatter drops milliseconds
  return Math.round((wall - whole) / 60_000);
}

/** A zone: an IANA name, or a fixed offset in minutes (devices with no known zone). */
export type ZoneSpec = { zone: string } | { offsetMinutes: number };

function offsetAt(spec: ZoneSpec, at: number): number {
  return 'zone' in spec ? zoneOffsetMinutes(spec.zone, new Date(at)) : spec.offsetMinutes;
}

/**
 * The instant at which the zone's clock shows `y-m-d hh:mm`. In a spring-forward gap (a clock time
 * that does not exist that day) it is the instant the clock jumps over it (02:30 in a 02:00→03:00
 * gap is 03:00 local, i.e. the first moment past the gap); a clock time that occurs twice (autumn)
 * is its first occurrence.
 */
export function zonedInstant(spec: ZoneSpec, y: number, m: number, d: number, hh: number, mm: number): Date {
  const wall = Date.UTC(y, m - 1, d, hh, mm);
  // Candidates: the wall time read with the offsets in force a day either side of it.
  const candidates = new Set<number>();
  for (const probe of [wall - 86_400_000, wall, wall + 86_400_000]) candidates.add(wall - offsetAt(spec, probe) * 60_000);
  const exact = [...candidates].filter((t) => wall - offsetAt(spec, t) * 60_000 === t).sort((a, b) => a - b);
  if (exact.length) return new Date(exact[0]);
  // A gap: the wall time never shows that day. Binary search the first instant (to the minute)
  // whose local clock reads at or after it: the moment the clock jumps over it.
  const sorted = [...candidates].sort((a, b) => a - b);
  let lo = sorted[0] - 86_400_000;
  let hi = sorted[sorted.length - 1] + 86_400_000;
  const localWall = (t: number) => t + offsetAt(spec, t) * 60_000;
  while (hi - lo > 60_000) {
    const mid = lo + Math.floor((hi - lo) / 2 / 60_000) * 60_000;
    if (localWall(mid) >= wall) hi = mid;
    else lo = mid;
  }
  return new Date(hi);
}

/** The zone's calendar date (y, m, d) at the instant `at`. */
export function zonedDate(spec: ZoneSpec, at: Date): { y: number; m: number; d: number } {
  const local = new Date(at.getTime() + offsetAt(spec, at.getTime()) * 60_000);
  return { y: local.getUTCFullYear(), m: local.getUTCMonth() + 1, d: local.getUTCDate() };
}

/**
 * The first instant not before `from` at which the zone's clock shows `timeOfDay` ("HH:MM"):
 * today's in that zone when it is still ahead (or exactly now), else tomorrow's.
 */
export function nextClockTime(spec: ZoneSpec, timeOfDay: string, from: Date): Date {
  const [hh, mm] = timeOfDay.split(':').map(Number);
  const { y, m, d } = zonedDate(spec, from);
  for (let day = 0; day < 3; day++) {
    const date = new Date(Date.UTC(y, m - 1, d + day));
    const at = zonedInstant(spec, date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), hh, mm);
    if (at.getTime() >= from.getTime()) return at;
  }
  throw new Error(`no ${timeOfDay} found after ${from.toISOString()}`); // unreachable: every day has the time or its gap
}

/** The zone spec of a device's stored zone: the zone itself when known, else the send's fallback offset. */
export function zoneSpecFor(zone: string | null, fallbackOffsetMinutes: number): ZoneSpec {
  return knownTimeZone(zone) ? { zone } : { offsetMinutes: fallbackOffsetMinutes };
}
