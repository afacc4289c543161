// An install as OneSignal's v1 "player" (issue 38 point 1): GET /players/{id} and the pages of GET
// /players. A player id is the subscription id. Fields Herald keeps no data for (game_version,
// device_model, device_os, ad_id, sdk, ip, …) are left out rather than invented
// (docs/api.md "OneSignal's v1 device calls").
import type { Queryable } from '../store/db.js';
import { isUuid } from '../formats/uuid.js';
import { UNSUBSCRIBED_BY_APP } from './app-unsubscribe.js';
import { DEVICE_TYPE_OF, type Platform } from './player-body.js';
import { offsetSecondsOf } from './player-time-zone.js';

/** OneSignal's limit of one page of GET /players. */
export const PLAYERS_PAGE_MAX = 300;

export interface PlayerRow {
  id: string;
  app_id: string;
  token: string;
  platform: Platform;
  external_id: string | null;
  language: string | null;
  timezone: string | null;
  tags: Record<string, string>;
  subscribed: boolean;
  unsubscribed_reason: string | null;
  environment: 'production' | 'sandbox' | null;
  session_count: number;
  session_time: string;
  amount_spent: string;
  last_active: Date | null;
  created_at: Date;
}

export interface Player {
  id: string;
  app_id: string;
  identifier: string;
  device_type: number;
  session_count: number;
  language: string | null;
  timezone: number | null;
  timezone_id: string | null;
  tags: Record<string, string>;
  external_user_id: string | null;
  /** 1 subscribed, -2 unsubscribed (by the app, or a token the gateway refused: invalid_identifier). */
  notification_types: number;
  invalid_identifier: boolean;
  test_type: 1 | 2 | null;
  /** Unix seconds. */
  last_active: number | null;
  created_at: number;
  /** Seconds in the app (the on_focus reports). */
  playtime: number;
  amount_spent: number;
}

const COLUMNS = `id, app_id, token, platform, external_id, language, timezone, tags, subscribed, unsubscribed_reason,
  environment, session_count, session_time, amount_spent, last_active, created_at`;

const unix = (d: Date) => Math.floor(d.getTime() / 1000);

export function playerView(row: PlayerRow, now: Date): Player {
  return {
    id: row.id,
    app_id: row.app_id,
    identifier: row.token,
    device_type: DEVICE_TYPE_OF[row.platform],
    session_count: row.session_count,
    language: row.language,
    timezone: offsetSecondsOf(row.timezone, now),
    timezone_id: row.timezone,
    tags: row.tags,
    external_user_id: row.external_id,
    notification_types: row.subscribed ? 1 : -2,
    invalid_identifier: !row.subscribed && row.unsubscribed_reason !== null && row.unsubscribed_reason !== UNSUBSCRIBED_BY_APP,
    test_type: row.environment === 'sandbox' ? 1 : row.environment === 'production' ? 2 : null,
    last_active: row.last_active ? unix(row.last_active) : null,
    created_at: unix(row.created_at),
    playtime: Number(row.session_time),
    amount_spent: Number(row.amount_spent),
  };
}

/** One install of the app as a player, or undefined (an id that is not a UUID finds nothing). */
export async function readPlayer(db: Queryable, appId: string, id: string, now: Date): Promise<Player | undefined> {
  if (!isUuid(id)) return undefined;
  const res = await db.query<PlayerRow>(`SELECT ${COLUMNS} FROM subscriptions WHERE app_id = $1 AND id = $2::uuid`, [appId, id.toLowerCase()]);
  return res.rows[0] && playerView(res.rows[0], now);
}

/** The platform of an install of the app, or undefined. */
export async function platformOf(db: Queryable, appId: string, id: string): Promise<Platform | undefined> {
  if (!isUuid(id)) return undefined;
  const res = await db.query<{ platform: Platform }>('SELECT platform FROM subscriptions WHERE app_id = $1 AND id = $2::uuid', [appId, id.toLowerCase()]);
  return res.rows[0]?.platform;
}

export interface PlayersPage {
  total_count: number;
  offset: number;
  limit: number;
  players: Player[];
}

/**
 * A page of the app's installs in registration order, as OneSignal's limit and offset. The offset
 * is read through the (app_id, seq) index, so a far page costs its offset in index entries;
 * exportSubscriptions is the call for a whole audience.
 */
export async function listPlayers(db: Queryable, appId: string, limit: number, offset: number, now: Date): Promise<PlayersPage> {
  const [count, page] = await Promise.all([
    db.query<{ n: number }>('SELECT count(*)::int AS n FROM subscriptions WHERE app_id = $1', [appId]),
    db.query<PlayerRow>(`SELECT ${COLUMNS} FROM subscriptions WHERE app_id = $1 ORDER BY seq LIMIT $2 OFFSET $3`, [appId, limit, offset]),
  ]);
  return { total_count: count.rows[0].n, offset, limit, players: page.rows.map((row) => playerView(row, now)) };
}
