// The installs of an include_aliases send of a label other than external_id (issue 27): those of
// the users the alias ids name. external_id keeps its own list kind, read from the installs'
// copy (`subscriptions.external_id`), so its path is the one of before. Shared by the chunk's
// devices, the zone plan, the unknown ids, opens and the install page, so all agree on who is in.
import { Params } from './filter.js';
import { ONESIGNAL_ID } from '../formats/alias-label.js';
import type { Queryable } from '../store/db.js';
import type { SendTarget } from '../send-model/request.js';

/**
 * The pieces of `SELECT … FROM subscriptions s ${join} WHERE … AND ${where}` for the installs of
 * the users the ids name, and `entry`: the id that named each (as given). onesignal_id is the
 * user's own id (`subscriptions.user_id`); another label is a user_aliases row of the app ($1).
 */
export function aliasInstalls(label: string, ids: string[], params: Params): { entry: string; join: string; where: string } {
  if (label === ONESIGNAL_ID) return { entry: 's.user_id::text', join: '', where: `s.user_id = ANY(${params.add(ids)}::uuid[])` };
  return {
    entry: 'a.alias_id',
    join: 'JOIN user_aliases a ON a.user_id = s.user_id',
    where: `a.app_id = s.app_id AND a.label = ${params.add(label)}::text AND a.alias_id = ANY(${params.add(ids)}::text[])`,
  };
}

/** Whether the install is one of the users an include_aliases send named (opens, the install page). */
export async function isAliasMember(db: Queryable, appId: string, target: Extract<SendTarget, { kind: 'aliases' }>, subscriptionId: string): Promise<boolean> {
  const params = new Params([appId, subscriptionId]);
  const members = aliasInstalls(target.label, target.ids, params);
  const res = await db.query(`SELECT 1 FROM subscriptions s ${members.join} WHERE s.app_id = $1 AND s.id = $2::uuid AND ${members.where} LIMIT 1`, params.values);
  return (res.rowCount ?? 0) > 0;
}
