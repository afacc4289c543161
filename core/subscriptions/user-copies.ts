// The copies an install carries of its user (docs/decisions.md "Issue 27"): the user owns tags,
// language, time zone and external id; each install keeps them in its own columns so delivery
// reads one table. This is the one statement that writes them: core/users after a user changes,
// and the import after it loads installs of users. Here, beside the installs it writes, so that
// core/users depends on core/subscriptions and not the other way round.
import type { Queryable } from '../store/db.js';

/** The alias label of the external id (the one alias installs carry a copy of). */
export const EXTERNAL_ID = 'external_id';

/** The SET list copying user `u`'s properties and external id onto an install. */
export const COPY_TO_INSTALLS = `tags = u.tags, language = u.language, timezone = u.timezone_id,
  external_id = (SELECT a.alias_id FROM user_aliases a WHERE a.user_id = u.id AND a.label = '${EXTERNAL_ID}'), updated_at = now()`;

/** Writes the user's properties and external id onto each of its installs. */
export async function copyToInstalls(db: Queryable, userId: string): Promise<void> {
  await db.query(`UPDATE subscriptions s SET ${COPY_TO_INSTALLS} FROM users u WHERE u.id = $1 AND s.user_id = u.id`, [userId]);
}
