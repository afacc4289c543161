// OneSignal's v1 `timezone` (seconds east of UTC) as the time zone an install keeps: Herald stores
// an IANA name (subscriptions.timezone), which `delayed_option: timezone` and the user model read
// (docs/decisions.md "Issue 38"). A whole hour is the Etc/GMT zone of that offset (POSIX signs:
// Etc/GMT-2 is UTC+2); a half or three-quarter hour is the one zone that keeps that offset all year,
// where there is one; any other offset keeps no zone (delivered as a device of unknown zone is).
// An offset says nothing of daylight saving: a device that changes offset reports it again at
// its next session, as OneSignal's SDK does.
import { zoneOffsetMinutes, knownTimeZone } from '../time/zone-clock.js';

/** UTC-12:00 to UTC+14:00, the offsets in use. */
export const OFFSET_MIN_SECONDS = -12 * 3600;
export const OFFSET_MAX_SECONDS = 14 * 3600;

/** Offsets off the hour, by minutes east, with a zone that has kept it without DST for years. */
const FRACTIONAL: Readonly<Record<number, string>> = {
  [-570]: 'Pacific/Marquesas',
  210: 'Asia/Tehran',
  270: 'Asia/Kabul',
  330: 'Asia/Kolkata',
  345: 'Asia/Kathmandu',
  390: 'Asia/Yangon',
  525: 'Australia/Eucla',
  570: 'Australia/Darwin',
};

/** The IANA zone of an offset in seconds, or null when no zone keeps it (see above). */
export function zoneOfOffset(seconds: number): string | null {
  if (seconds % 60 !== 0) return null;
  const minutes = seconds / 60;
  if (minutes % 60 === 0) {
    const hours = minutes / 60;
    // Etc/GMT zones exist from -14 to +12 (POSIX sign: east is minus).
    return hours === 0 ? 'Etc/GMT' : `Etc/GMT${hours > 0 ? '-' : '+'}${Math.abs(hours)}`;
  }
  return FRACTIONAL[minutes] ?? null;
}

/** The v1 `timezone` of a stored zone: its offset in seconds now; null for none or an unknown one. */
export function offsetSecondsOf(zone: string | null, now: Date): number | null {
  if (!knownTimeZone(zone)) return null;
  return zoneOffsetMinutes(zone, now) * 60;
}
