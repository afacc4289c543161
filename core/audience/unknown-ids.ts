// The ids of a list send that name no subscribed install of the app, answered as OneSignal does
// (`errors.invalid_aliases.external_id`, `errors.invalid_player_ids`), so a caller learns which
// ids were unknown while the send goes on to the others (they are counted `skipped`). One indexed
// statement over at most 500 ids.
import type { Queryable } from '../store/db.js';
import type { SendTarget } from '../send/request.js';

export interface UnknownIds {
  invalid_aliases?: { external_id: string[] };
  invalid_player_ids?: string[];
}

export async function unknownListIds(db: Queryable, appId: string, target: SendTarget): Promise<UnknownIds | undefined> {
  if (target.kind !== 'subscription_ids' && target.kind !== 'external_ids') return undefined;
  const match = target.kind === 'external_ids' ? 's.external_id = x' : 's.id = x::uuid';
  const res = await db.query<{ x: string }>(
    `SELECT x FROM unnest($2::text[]) WITH ORDINALITY AS u(x, n)
      WHERE NOT EXISTS (SELECT 1 FROM subscriptions s WHERE s.app_id = $1 AND s.subscribed AND ${match})
      ORDER BY n`,
    [appId, target.ids],
  );
  if (res.rows.length === 0) return undefined;
  const ids = res.rows.map((r) => r.x);
  return target.kind === 'external_ids' ? { invalid_aliases: { external_id: ids } } : { invalid_player_ids: ids };
}
