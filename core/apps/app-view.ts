// getApp for the key's own app (issue 38 point 2): OneSignal's App, with what Herald has of it:
// its id, name, player counts, APNs environment and dates. The counts are the app's installs and
// its subscribed ones, read live from the audience index (index-only, as a broadcast's count),
// which is why the route draws the `estimate` bucket.
import type { Queryable } from '../store/db.js';

export interface AppView {
  id: string;
  name: string;
  players: number;
  messageable_players: number;
  apns_env: 'production' | 'sandbox';
  created_at: string;
  updated_at: string;
}

export async function readAppView(db: Queryable, appId: string): Promise<AppView | undefined> {
  const res = await db.query<{ id: string; name: string; environment: 'production' | 'sandbox'; created_at: Date; updated_at: Date; players: number; messageable: number }>(
    `SELECT a.id, a.name, a.environment, a.created_at, a.updated_at,
            (SELECT count(*)::int FROM subscriptions s WHERE s.app_id = a.id) AS players,
            (SELECT count(*)::int FROM subscriptions s WHERE s.app_id = a.id AND s.subscribed) AS messageable
       FROM apps a WHERE a.id = $1`,
    [appId],
  );
  const row = res.rows[0];
  if (!row) return undefined;
  return {
    id: row.id, name: row.name, players: row.players, messageable_players: row.messageable,
    apns_env: row.environment, created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString(),
  };
}
