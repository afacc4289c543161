// Erasure of a user (deleteUser; docs/security.md "Data map"): in one transaction, everything that
// holds an id or token of the user goes for good. Its installs, aliases and (through the
// installs) Live Activity tokens and push type tokens (VoIP, location, …) go with the user row by
// foreign key, counted first so the answer says what went; the places that name an
// install or an external id without a key are cleared here by index (migration 027): the opens of
// its installs, the lists of list sends and their stored answers, the entries of send chunks, and
// the install ids of event records (issue 28).
// A chunk in flight that planned an erased install finds it gone and counts it skipped, as an
// install unsubscribed since the plan (core/delivery/chunks.ts, sender/tally.ts).
import type { PoolClient } from '../store/db.js';
import { ONESIGNAL_ID } from '../formats/alias-label.js';
import { forgetInstallsInEvents } from '../events/record.js';

export interface Erased {
  installs: number;
  aliases: number;
  live_activity_tokens: number;
  /** VoIP, location, complication, push-to-talk, widgets and controls tokens (issue 29). */
  push_type_tokens: number;
  opens: number;
  sends_scrubbed: number;
}

/** Erases a user locked by the caller's transaction (resolve.ts). */
export async function eraseLockedUser(db: PoolClient, appId: string, userId: string): Promise<Erased> {
  const aliases = await db.query<{ alias_id: string; label: string }>('SELECT label, alias_id FROM user_aliases WHERE user_id = $1', [userId]);
  // Its installs, and those of the app carrying its external id with no user row (herald import
  // writes such installs by token; registered before the user's row was made): the user's too,
  // erased and taken out of every place below alike.
  const installs = await db.query<{ id: string; external_id: string | null }>(
    `SELECT id, external_id FROM subscriptions WHERE user_id = $1
        OR (app_id = $2 AND user_id IS NULL AND external_id = ANY($3::text[])) FOR UPDATE`,
    [userId, appId, aliases.rows.filter((a) => a.label === 'external_id').map((a) => a.alias_id)],
  );
  const installIds = installs.rows.map((r) => r.id);
  const externalIds = [...new Set([
    ...aliases.rows.filter((a) => a.label === 'external_id').map((a) => a.alias_id),
    ...installs.rows.flatMap((r) => (r.external_id === null ? [] : [r.external_id])),
  ])];
  // A list send keeps its ids as the caller wrote them: a subscription id in either case.
  const named = [...new Set([...installIds, ...installIds.map((id) => id.toUpperCase()), ...externalIds])];
  const tokens = await countTokens(db, installIds);
  const opens = await db.query('DELETE FROM opens WHERE subscription_id = ANY($1::uuid[])', [installIds]);
  let scrubbed = named.length ? await scrubSends(db, appId, named, LISTS) : 0;
  // include_aliases sends of other labels (issue 27) name the user by that label's id, or by its
  // own id (onesignal_id): taken out of the sends of that label only, as an id of one label may be
  // another user's id of another label.
  const byLabel = new Map<string, string[]>([[ONESIGNAL_ID, [userId]]]);
  for (const a of aliases.rows) if (a.label !== 'external_id') byLabel.set(a.label, [...(byLabel.get(a.label) ?? []), a.alias_id]);
  for (const [label, ids] of byLabel) scrubbed += await scrubSends(db, appId, ids, { sql: `request->'target'->>'kind' = 'aliases' AND request->'target'->>'label' = $3`, params: [label] });
  // After the sends: a list send's chunk being recorded holds its send row, so the scrub above waited
  // for that record to commit, and this one sees it (core/events/record.ts nulls those recorded later).
  await forgetInstallsInEvents(db, appId, installIds);
  // Another install of the app may carry the external id without a user (registered after the
  // user's row was made, before this call): it is the user's too.
  if (externalIds.length) await db.query('DELETE FROM subscriptions WHERE app_id = $1 AND external_id = ANY($2::text[]) AND user_id IS NULL', [appId, externalIds]);
  await db.query('DELETE FROM users WHERE id = $1', [userId]);
  return { installs: installIds.length, aliases: aliases.rowCount ?? 0, ...tokens, opens: opens.rowCount ?? 0, sends_scrubbed: scrubbed };
}

/** The tokens the installs' deletion takes by foreign key, counted before it (one statement). */
async function countTokens(db: PoolClient, installIds: string[]): Promise<Pick<Erased, 'live_activity_tokens' | 'push_type_tokens'>> {
  const res = await db.query<Pick<Erased, 'live_activity_tokens' | 'push_type_tokens'>>(
    `SELECT (SELECT count(*)::int FROM live_activity_tokens WHERE subscription_id = ANY($1::uuid[])) AS live_activity_tokens,
            (SELECT count(*)::int FROM push_type_tokens WHERE subscription_id = ANY($1::uuid[])) AS push_type_tokens`,
    [installIds],
  );
  return res.rows[0];
}

/**
 * Takes the ids out of the app's list sends (sends.request's target ids), the answers kept for
 * their idempotent repeats (the unknown ids OneSignal-style) and the entries of their chunks.
 */
/** Which list sends a scrub reads: `sql` on `sends`, its parameters from $3. */
interface SendsOf {
  sql: string;
  params: unknown[];
}

/** The list sends of subscription ids and external ids (include_aliases of another label apart). */
const LISTS: SendsOf = { sql: `coalesce(request->'target'->>'kind', '') <> 'aliases'`, params: [] };

async function scrubSends(db: PoolClient, appId: string, named: string[], which: SendsOf): Promise<number> {
  const sends = await db.query<{ id: string }>(
    `UPDATE sends SET request = jsonb_set(request, '{target,ids}',
            (SELECT coalesce(jsonb_agg(x ORDER BY n), '[]') FROM jsonb_array_elements(request->'target'->'ids') WITH ORDINALITY AS e(x, n) WHERE NOT (x #>> '{}') = ANY($2::text[])))
      WHERE app_id = $1 AND request->'target' ? 'ids' AND (request->'target'->'ids') ?| $2::text[] AND ${which.sql}
      RETURNING id`,
    [appId, named, ...which.params],
  );
  await db.query(
    `UPDATE send_chunks c SET entries = ARRAY(SELECT e FROM unnest(c.entries) WITH ORDINALITY AS u(e, n) WHERE NOT e = ANY($2::text[]) ORDER BY n)
      WHERE c.entries && $2::text[] AND c.entries IS NOT NULL AND c.send_id IN (SELECT id FROM sends WHERE app_id = $1 AND ${which.sql})`,
    [appId, named, ...which.params],
  );
  if (sends.rowCount) {
    const kept = await db.query<{ key: string; response: unknown }>(
      `SELECT key, response FROM idempotency_keys WHERE app_id = $1 AND send_id = ANY($2::bigint[]) AND response IS NOT NULL FOR UPDATE`,
      [appId, sends.rows.map((r) => r.id)],
    );
    const gone = new Set(named);
    for (const row of kept.rows) {
      await db.query('UPDATE idempotency_keys SET response = $3 WHERE app_id = $1 AND key = $2', [appId, row.key, JSON.stringify(without(row.response, gone))]);
    }
  }
  return sends.rowCount ?? 0;
}

/** `value` with every array element that is one of `gone` left out, at any depth. */
function without(value: unknown, gone: Set<string>): unknown {
  if (Array.isArray(value)) return value.filter((v) => !(typeof v === 'string' && gone.has(v))).map((v) => without(v, gone));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, without(v, gone)]));
  return value;
}

/**
 * Erases one install of the app (deleteSubscription): its row and token, its Live Activity and push
 * type tokens (foreign key), its opens, and its id in list sends, their answers and chunk entries. Its user
 * and the user's aliases stay (OneSignal keeps a user without subscriptions). Undefined: no such install.
 */
export async function eraseInstall(db: PoolClient, appId: string, installId: string): Promise<Erased | undefined> {
  const found = await db.query('SELECT id FROM subscriptions WHERE app_id = $1 AND id = $2::uuid FOR UPDATE', [appId, installId]);
  if (!found.rowCount) return undefined;
  const tokens = await countTokens(db, [installId]);
  const opens = await db.query('DELETE FROM opens WHERE subscription_id = $1', [installId]);
  const scrubbed = await scrubSends(db, appId, [installId, installId.toUpperCase()], LISTS);
  await forgetInstallsInEvents(db, appId, [installId]);
  await db.query('DELETE FROM subscriptions WHERE id = $1', [installId]);
  return { installs: 1, aliases: 0, ...tokens, opens: opens.rowCount ?? 0, sends_scrubbed: scrubbed };
}
