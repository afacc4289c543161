// The ids of a list send that name no subscribed install of the app, answered as OneSignal does
// (`errors.invalid_aliases.<label>`, `errors.invalid_player_ids`), so a caller learns which
// ids were unknown while the send goes on to the others (they are counted `skipped`). One indexed
// statement, shared by the list sends of concurrent requests (core/store/coalesce.ts): a list send
// is the transactional hot path, and this lookup was a round trip of its own per send.
import type { Pool } from '../store/db.js';
import { GroupedStatement, perPool } from '../store/coalesce.js';
import type { SendTarget } from '../send-model/request.js';
import type { UnknownIds } from '../send-model/response.js';
import { idKindOfLabel, isListTarget, listIdLabel, type ListIdKind } from './target-kinds.js';

/** `kind`: a subscription id, an external id, a OneSignal id (a user's), or an id under `label`. */
interface IdLookup {
  appId: string;
  kind: ListIdKind;
  label: string | null;
  id: string;
}

export async function unknownListIds(pool: Pool, appId: string, target: SendTarget): Promise<UnknownIds | undefined> {
  if (!isListTarget(target)) return undefined;
  const label = listIdLabel(target);
  const kind = idKindOfLabel(label);
  const unknown = await lookupOf(pool).submit(target.ids.map((id) => ({ appId, kind, label, id })));
  const ids = target.ids.filter((_, i) => unknown[i]);
  if (ids.length === 0) return undefined;
  return label === null ? { invalid_player_ids: ids } : { invalid_aliases: { [label]: ids } };
}

/** One answer per id, in order: true when no subscribed install of its app has it. */
async function lookUp(pool: Pool, items: IdLookup[]): Promise<boolean[]> {
  const res = await pool.query<{ unknown: boolean }>({
    name: 'herald-unknown-list-ids',
    // CASE keeps the uuid casts to ids validated as UUIDs and each EXISTS on its index.
    text: `SELECT NOT CASE u.kind
                WHEN 'external' THEN EXISTS (SELECT 1 FROM subscriptions s WHERE s.app_id = u.app_id AND s.subscribed AND s.external_id = u.id)
                WHEN 'subscription' THEN EXISTS (SELECT 1 FROM subscriptions s WHERE s.app_id = u.app_id AND s.subscribed AND s.id = u.id::uuid)
                WHEN 'onesignal' THEN EXISTS (SELECT 1 FROM subscriptions s WHERE s.app_id = u.app_id AND s.subscribed AND s.user_id = u.id::uuid)
                ELSE EXISTS (SELECT 1 FROM user_aliases a JOIN subscriptions s ON s.user_id = a.user_id
                              WHERE a.app_id = u.app_id AND a.label = u.label AND a.alias_id = u.id AND s.subscribed) END AS unknown
             FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS u(app_id, kind, label, id, n)
            ORDER BY u.n`,
    values: [items.map((i) => i.appId), items.map((i) => i.kind), items.map((i) => i.label), items.map((i) => i.id)],
  });
  return res.rows.map((r) => r.unknown);
}

const lookupOf = perPool((pool: Pool) => new GroupedStatement<IdLookup, boolean>((items) => lookUp(pool, items)));
