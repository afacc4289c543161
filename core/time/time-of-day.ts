// `delivery_time_of_day` as OneSignal writes it (DECISIONS "Time": `9:00AM`, `21:45`).

/** Returns "HH:MM" (24 h), or undefined when the text is not a clock time. */
export function parseTimeOfDay(text: string): string | undefined {
  const m = /^(\d{1,2}):(\d{2})(?::00)?\s*([AaPp]\.?[Mm]\.?)?$/.exec(text.trim());
  if (!m) return undefined;
  let hour = Number(m[1]);
  const minute = Number(m[2]);
  if (minute > 59) return undefined;
  if (m[3] !== undefined) {
    // 12-hour clock: 12:xxAM is just after midnight, 12:xxPM just after noon.
    if (hour < 1 || hour > 12) return undefined;
    const pm = m[3][0].toLowerCase() === 'p';
    hour = (hour % 12) + (pm ? 12 : 0);
  } else if (hour > 23) {
    return undefined;
  }
  return `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`;
}
