// The ids of a list send that name no subscribed install of the app, answered as OneSignal does
// (`errors.invalid_aliases.external_id`, `errors.invalid_player_ids`), so a caller learns which
// ids were unknown while the send goes on to the others (they are counted `skipped`). One indexed
// statement, shared by the list sends of concurrent requests (core/store/coalesce.ts): a list send
// is the transactional hot path, and this lookup was a round trip of its own per send.
import type { Pool } from '../store/db.js';
import { GroupedStatement, perPool } from '../store/coalesce.js';
import type { SendTarget } from '../send-model/request.js';
import type { UnknownIds } from '../send-model/response.js';

interface IdLookup {
  appId: string;
  external: boolean;
  id: string;
}

export async function unknownListIds(pool: Pool, appId: string, target: SendTarget): Promise<UnknownIds | undefined> {
  if (target.kind !== 'subscription_ids' && target.kind !== 'external_ids') return undefined;
  const external = target.kind === 'external_ids';
  const unknown = await lookupOf(pool).submit(target.ids.map((id) => ({ appId, external, id })));
  const ids = target.ids.filter((_, i) => unknown[i]);
  if (ids.length === 0) return undefined;
  return external ? { invalid_aliases: { external_id: ids } } : { invalid_player_ids: ids };
}

/** One answer per id, in order: true when no subscribed install of its app has it. */
async function lookUp(pool: Pool, items: IdLookup[]): Promise<boolean[]> {
  const res = await pool.query<{ unknown: boolean }>({
    name: 'herald-unknown-list-ids',
    // CASE keeps the uuid cast to subscription ids (validated as UUIDs) and each EXISTS on its index.
    text: `SELECT NOT CASE WHEN u.external
                THEN EXISTS (SELECT 1 FROM subscriptions s WHERE s.app_id = u.app_id AND s.subscribed AND s.external_id = u.id)
                ELSE EXISTS (SELECT 1 FROM subscriptions s WHERE s.app_id = u.app_id AND s.subscribed AND s.id = u.id::uuid) END AS unknown
             FROM unnest($1::uuid[], $2::boolean[], $3::text[]) WITH ORDINALITY AS u(app_id, external, id, n)
            ORDER BY u.n`,
    values: [items.map((i) => i.appId), items.map((i) => i.external), items.map((i) => i.id)],
  });
  return res.rows.map((r) => r.unknown);
}

const lookupOf = perPool((pool: Pool) => new GroupedStatement<IdLookup, boolean>((items) => lookUp(pool, items)));
