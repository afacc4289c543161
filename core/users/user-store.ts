// The user calls' reads and writes (issue 27): a user's view as OneSignal's User model, its
// properties written once on the user and copied onto its installs in the same statement, its
// aliases. Every function runs in the caller's transaction after resolve.ts locked the user.
import type { PoolClient, Queryable } from '../store/db.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { lockName } from './resolve.js';
import { COPY_TO_INSTALLS, copyToInstalls } from '../subscriptions/user-copies.js';
import { EXTERNAL_ID, ONESIGNAL_ID, USER_LIMITS } from './user-limits.js';
import { typeOf, type Platform, type SubscriptionType } from '../formats/install-type.js';

export interface UserProperties {
  tags: Record<string, string>;
  language?: string;
  timezone_id?: string;
  /** Unix seconds, as OneSignal's PropertiesObject. */
  first_active: number;
  last_active: number;
}

export interface UserSubscriptionView {
  id: string;
  type: SubscriptionType;
  token: string;
  enabled: boolean;
  test_type?: number;
}

export interface UserView {
  properties: UserProperties;
  identity: Record<string, string>;
  subscriptions: UserSubscriptionView[];
}

/** What updateUser and createUser may change; a tag of "" (or null) is removed. */
export interface PropertiesChange {
  tags?: Record<string, string | null>;
  language?: string;
  timezone_id?: string;
}

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);
const TEST_TYPE: Record<string, number> = { sandbox: 1 };

/** The answer for a user that is not (or no longer) there: the REST calls' 404 and the dashboard's. */
export const NO_SUCH_USER = 'No such user.';

/** The user's view; a user erased since the caller found it is a 404, not a crash. */
export async function readUser(db: Queryable, userId: string): Promise<UserView> {
  const res = await db.query(
    `SELECT u.tags, u.language, u.timezone_id, u.created_at, u.last_active,
            (SELECT coalesce(jsonb_object_agg(a.label, a.alias_id), '{}') FROM user_aliases a WHERE a.user_id = u.id) AS identity,
            (SELECT coalesce(jsonb_agg(jsonb_build_object('id', s.id, 'token', s.token, 'enabled', s.subscribed, 'environment', s.environment, 'platform', s.platform) ORDER BY s.seq), '[]')
               FROM subscriptions s WHERE s.user_id = u.id) AS subscriptions
       FROM users u WHERE u.id = $1`,
    [userId],
  );
  const row = res.rows[0];
  if (!row) throw new NotFoundError(NO_SUCH_USER);
  return {
    properties: propertiesOf(row),
    identity: { ...row.identity, [ONESIGNAL_ID]: userId },
    subscriptions: (row.subscriptions as Array<{ id: string; token: string; enabled: boolean; environment: string | null; platform: Platform }>).map((s) => ({
      id: s.id,
      type: typeOf(s.platform),
      token: s.token,
      enabled: s.enabled,
      ...(s.environment !== null && TEST_TYPE[s.environment] !== undefined ? { test_type: TEST_TYPE[s.environment] } : {}),
    })),
  };
}

interface PropertiesRow {
  tags: Record<string, string>;
  language: string | null;
  timezone_id: string | null;
  created_at: Date;
  last_active: Date;
}

/** OneSignal's PropertiesObject from a users row. */
function propertiesOf(row: PropertiesRow): UserProperties {
  const properties: UserProperties = { tags: row.tags, first_active: seconds(row.created_at), last_active: seconds(row.last_active) };
  if (row.language !== null) properties.language = row.language;
  if (row.timezone_id !== null) properties.timezone_id = row.timezone_id;
  return properties;
}

/** Tags as stored: text values; "" means remove (OneSignal), kept as null here. */
export function readTags(tags: Record<string, unknown> | undefined): Record<string, string | null> | undefined {
  if (tags === undefined) return undefined;
  return Object.fromEntries(Object.entries(tags).map(([k, v]) => [k, v === '' || v === null ? null : String(v)]));
}

/** The properties of updateUser's and createUser's bodies (OneSignal's PropertiesObject). */
export interface PropertiesBody {
  tags?: Record<string, unknown>;
  language?: string;
  timezone_id?: string;
}

/** A body's properties as the store changes them: tags as text ("" or null removes one). */
export function propertiesChange(properties: PropertiesBody | undefined): PropertiesChange {
  const change: PropertiesChange = { tags: readTags(properties?.tags) };
  if (properties?.language !== undefined) change.language = properties.language;
  if (properties?.timezone_id !== undefined) change.timezone_id = properties.timezone_id;
  return change;
}

/**
 * Changes a user's properties and copies them onto every install of the user, in one statement:
 * a send planned after it sees the new tags on all installs, none before. 422 when the tags would
 * be more than USER_LIMITS.tags. Returns the properties written (undefined: no such user).
 */
export function writeProperties(db: Queryable, userId: string, change: PropertiesChange): Promise<UserProperties | undefined> {
  return writeWhere(db, { from: 'users u0 WHERE u0.id = $8', params: [userId] }, change);
}

/**
 * The user to change: `from` names its users row `u0`, with parameters from $8. Always a user the
 * caller's transaction locked already: a statement that waited for the lock here would copy onto
 * the installs its snapshot saw, missing one that joined the user meanwhile.
 */
interface UserSource {
  from: string;
  params: unknown[];
}

async function writeWhere(db: Queryable, source: UserSource, change: PropertiesChange): Promise<UserProperties | undefined> {
  const set: Record<string, string> = {};
  const remove: string[] = [];
  for (const [k, v] of Object.entries(change.tags ?? {})) {
    if (v === null) remove.push(k);
    else set[k] = v;
  }
  const res = await db.query<{ found: boolean; written: boolean } & PropertiesRow>(
    `WITH cur AS (
       SELECT u0.id, (u0.tags || $1::jsonb) - $2::text[] AS next FROM ${source.from} FOR UPDATE OF u0
     ), u AS (
       UPDATE users SET tags = cur.next,
              language = CASE WHEN $3 THEN $4 ELSE users.language END,
              timezone_id = CASE WHEN $5 THEN $6 ELSE users.timezone_id END,
              last_active = now(), updated_at = now()
         FROM cur WHERE users.id = cur.id AND (SELECT count(*) FROM jsonb_object_keys(cur.next)) <= $7
       RETURNING users.*
     ), s AS (
       UPDATE subscriptions s SET ${COPY_TO_INSTALLS} FROM u WHERE s.user_id = u.id RETURNING 1
     )
     SELECT EXISTS (SELECT 1 FROM cur) AS found, u.id IS NOT NULL AS written, u.tags, u.language, u.timezone_id, u.created_at, u.last_active
       FROM (SELECT 1) one LEFT JOIN u ON true`,
    [JSON.stringify(set), remove, 'language' in change, change.language ?? null, 'timezone_id' in change, change.timezone_id ?? null, USER_LIMITS.tags, ...source.params],
  );
  const row = res.rows[0];
  if (row.found && !row.written) {
    throw new ValidationError({ field: 'properties.tags', message: `properties.tags: a user holds at most ${USER_LIMITS.tags} tags; remove some with "" first.` });
  }
  return row.written ? propertiesOf(row) : undefined;
}

/** The user's aliases with its OneSignal id (OneSignal's UserIdentityBody.identity). */
export async function readIdentity(db: Queryable, userId: string): Promise<Record<string, string>> {
  const res = await db.query<{ label: string; alias_id: string }>('SELECT label, alias_id FROM user_aliases WHERE user_id = $1 ORDER BY label', [userId]);
  return { ...Object.fromEntries(res.rows.map((r) => [r.label, r.alias_id])), [ONESIGNAL_ID]: userId };
}

/**
 * Gives the user these aliases (replacing its id of a label it has). 409 when one names another
 * user of the app; 422 beyond USER_LIMITS.aliases. The external id is copied onto its installs.
 */
export async function addAliases(db: PoolClient, appId: string, userId: string, identity: Record<string, string>): Promise<void> {
  if (ONESIGNAL_ID in identity) throw new ValidationError({ field: `identity.${ONESIGNAL_ID}`, message: `identity.${ONESIGNAL_ID} is the user's own id: it cannot be set.` });
  // In one order (sorted), so two calls naming the same aliases never wait on each other in a circle.
  const labels = Object.keys(identity).sort();
  for (const label of labels) await lockName(db, appId, label, identity[label]);
  const taken = await db.query<{ label: string; alias_id: string }>(
    `SELECT label, alias_id FROM user_aliases WHERE app_id = $1 AND user_id <> $2 AND (label, alias_id) IN (SELECT * FROM unnest($3::text[], $4::text[]))`,
    [appId, userId, labels, labels.map((l) => identity[l])],
  );
  if (taken.rowCount) {
    throw new ConflictError(`identity.${taken.rows[0].label}: ${taken.rows[0].alias_id} is an alias of another user of this app; delete it there first.`);
  }
  // Two statements: the new ids may reuse the pair the old ones free (a delete and an insert in
  // one statement's CTEs run in no set order).
  await db.query('DELETE FROM user_aliases WHERE user_id = $1 AND label = ANY($2::text[])', [userId, labels]);
  await db.query(
    'INSERT INTO user_aliases (app_id, label, alias_id, user_id) SELECT $1, l, i, $2 FROM unnest($3::text[], $4::text[]) AS x(l, i)',
    [appId, userId, labels, labels.map((l) => identity[l])],
  );
  const res = await db.query<{ n: string }>('SELECT count(*) AS n FROM user_aliases WHERE user_id = $1', [userId]);
  if (Number(res.rows[0].n) > USER_LIMITS.aliases) {
    throw new ValidationError({ field: 'identity', message: `identity: a user holds at most ${USER_LIMITS.aliases} aliases; delete one first.` });
  }
  if (EXTERNAL_ID in identity) {
    // Installs the app registered with this external id and no user yet are this user's now.
    await db.query('UPDATE subscriptions SET user_id = $1 WHERE app_id = $2 AND external_id = $3 AND user_id IS NULL', [userId, appId, identity[EXTERNAL_ID]]);
    await checkRoom(db, userId, 'identity');
    await copyToInstalls(db, userId);
  }
}

/** Removes one alias of the user (false when it has none of that label). */
export async function removeAlias(db: PoolClient, userId: string, label: string): Promise<boolean> {
  if (label === ONESIGNAL_ID) throw new ValidationError({ field: 'alias_label_to_delete', message: `${ONESIGNAL_ID} is the user's own id: it cannot be deleted (delete the user instead).` });
  const res = await db.query('DELETE FROM user_aliases WHERE user_id = $1 AND label = $2', [userId, label]);
  if (label === EXTERNAL_ID && res.rowCount) await db.query('UPDATE subscriptions SET external_id = NULL, updated_at = now() WHERE user_id = $1', [userId]);
  return (res.rowCount ?? 0) > 0;
}

/**
 * OneSignal's 409 for a user that would hold more than its subscriptions (the transaction is
 * undone): every path that gives a user installs (createSubscription, transferSubscription, an
 * external id's alias taking the installs the app registered with it).
 */
export async function checkRoom(db: Queryable, userId: string, field: string): Promise<void> {
  const count = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM subscriptions WHERE user_id = $1', [userId]);
  if (count.rows[0].n > USER_LIMITS.subscriptions) {
    throw new ConflictError(`${field}: the user already holds ${USER_LIMITS.subscriptions} subscriptions, the most a user holds; delete or transfer one of them first.`);
  }
}
