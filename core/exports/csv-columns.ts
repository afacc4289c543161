// The export's columns: OneSignal's CSV export columns where Herald keeps the data, in OneSignal's
// order (its default columns, then the extra ones asked for). What Herald does not keep
// (session_count, game_version, device_os, device_model, ad_id, playtime, amount_spent,
// badge_count; location, country, rooted, ip, web_auth, web_p256) is left out rather than written
// empty. docs/api.md "Export" lists them and what differs. Each value is SQL on install `s`.

const UTC = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS')`;

/** Always written, in this order. */
export const DEFAULT_COLUMNS: Readonly<Record<string, string>> = {
  id: 's.id',
  identifier: 's.token',
  language: 's.language',
  // Herald keeps the IANA name (OneSignal writes the offset in seconds, which changes with DST).
  timezone: 's.timezone',
  // OneSignal's device types: 0 = iOS, 1 = Android.
  device_type: `CASE WHEN s.platform = 'android' THEN 1 ELSE 0 END`,
  tags: 's.tags::text',
  last_active: UTC('s.last_active'),
  created_at: UTC('s.created_at'),
  // t = unsubscribed, f = subscribed (OneSignal's reading).
  invalid_identifier: `CASE WHEN s.subscribed THEN 'f' ELSE 't' END`,
  // Herald's own, after OneSignal's columns: ios or android (issue 39), as the import takes it.
  platform: 's.platform',
};

/** Written when extra_fields names them. */
export const EXTRA_COLUMNS: Readonly<Record<string, string>> = {
  external_user_id: 's.external_id',
  // OneSignal: 1 subscribed, -2 unsubscribed (by the person or the app).
  notification_types: `CASE WHEN s.subscribed THEN 1 ELSE -2 END`,
  // The same IANA name as `timezone`, under the name OneSignal's user model gives it.
  timezone_id: 's.timezone',
};

/** The SELECT list of an export with these extra columns, in OneSignal's order. */
export function selectList(extra: readonly string[]): string {
  const columns = { ...DEFAULT_COLUMNS, ...Object.fromEntries(Object.keys(EXTRA_COLUMNS).filter((c) => extra.includes(c)).map((c) => [c, EXTRA_COLUMNS[c]])) };
  return Object.entries(columns).map(([name, sql]) => `${sql} AS ${name}`).join(', ');
}

/** The header row of such an export (the test reads the file against it). */
export function headerOf(extra: readonly string[]): string[] {
  return [...Object.keys(DEFAULT_COLUMNS), ...Object.keys(EXTRA_COLUMNS).filter((c) => extra.includes(c))];
}
