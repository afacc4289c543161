// createUser (POST /apps/{app_id}/users): a user with its aliases, properties and installs in one
// call, as OneSignal's import. The aliases look the user up first: none known makes a new user
// (201); all naming one user adds the rest to it (200, as OneSignal); naming several users is
// OneSignal's 409 "Multiple User Identity Conflict", with the aliases that clash.
import { randomUUID } from 'node:crypto';
import type { PoolClient } from '../store/db.js';
import { ValidationError } from '../errors.js';
import { platformClash, TEST_TYPE_ENVIRONMENT } from '../subscriptions/subscription-store.js';
import { platformOf, storedToken, type SubscriptionType } from '../formats/install-type.js';
import { lockSubscribed, recordAppUnsubscribe, UNSUBSCRIBED_BY_APP } from '../subscriptions/app-unsubscribe.js';
import { aliasUserUnlocked, findUser, lockNames, lockUsers } from './resolve.js';
import { StalePlan } from './transaction.js';
import { addAliases, propertiesChange, writeProperties, type PropertiesBody } from './user-store.js';
import { USER_LIMITS } from './user-limits.js';

/** An install as OneSignal's Subscription model gives it (iOSPush and AndroidPush are served). */
export interface UserSubscriptionBody {
  type: SubscriptionType;
  token: string;
  enabled?: boolean;
  test_type?: 1 | 2 | null;
}

export interface CreateUserBody {
  identity?: Record<string, string>;
  properties?: PropertiesBody;
  subscriptions?: UserSubscriptionBody[];
}

export type CreateUserOutcome =
  | { kind: 'created' | 'found'; userId: string }
  | { kind: 'conflict'; conflicting: Record<string, string> };


export async function writeNewUser(db: PoolClient, appId: string, body: CreateUserBody): Promise<CreateUserOutcome> {
  const identity = body.identity ?? {};
  const owners = new Map<string, string>();
  // Every alias name before any user, sorted (core/users/transaction.ts: one lock order).
  await lockNames(db, appId, Object.entries(identity));
  const plan = await lockPlannedUsers(db, appId, identity, body.subscriptions ?? []);
  for (const [label, id] of Object.entries(identity).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const owner = await findUser(db, appId, label, id);
    // A user findUser made here (from installs carrying the external id) is this transaction's own row.
    if (owner !== undefined && plan.owners.has(label) && plan.owners.get(label) !== owner) throw new StalePlan();
    if (owner !== undefined) owners.set(label, owner);
  }
  const distinct = new Set(owners.values());
  if (distinct.size > 1) return { kind: 'conflict', conflicting: Object.fromEntries([...owners.keys()].map((l) => [l, identity[l]])) };
  let userId = [...distinct][0];
  const kind = userId === undefined ? 'created' : 'found';
  if (userId === undefined) {
    userId = randomUUID();
    await db.query('INSERT INTO users (id, app_id) VALUES ($1, $2)', [userId, appId]);
  }
  if (Object.keys(identity).length) await addAliases(db, appId, userId, identity);
  await lockPlannedInstalls(db, appId, plan.installs, userId);
  for (const sub of body.subscriptions ?? []) await attachInstall(db, appId, userId, sub);
  if (body.subscriptions?.length) {
    const count = await db.query<{ n: string }>('SELECT count(*) AS n FROM subscriptions WHERE user_id = $1', [userId]);
    if (Number(count.rows[0].n) > USER_LIMITS.subscriptions) {
      throw new ValidationError({ field: 'subscriptions', message: `subscriptions: a user holds at most ${USER_LIMITS.subscriptions} subscriptions; this one would hold ${count.rows[0].n}.` });
    }
  }
  // Always written: it also copies the user's properties and external id onto the installs given.
  await writeProperties(db, userId, propertiesChange(body.properties));
  return { kind, userId };
}

interface UserPlan {
  /** The user each alias named (label → user id), as read before the users were locked. */
  owners: Map<string, string>;
  /** The user of each body token's install (token → user id; null: no install, or none), as read then. */
  installs: Map<string, string | null>;
}

/**
 * Locks every user the call may change before it holds any install (transaction.ts): the users
 * the aliases name and the users whose installs the body's tokens move here, sorted. Moving an
 * install without its old user locked let a call holding that user (changeUser writing its
 * installs) and this one each hold an install the other wanted. Planned from unlocked reads; a
 * plan gone stale once held runs the call again (StalePlan).
 */
async function lockPlannedUsers(db: PoolClient, appId: string, identity: Record<string, string>, subs: UserSubscriptionBody[]): Promise<UserPlan> {
  const owners = new Map<string, string>();
  for (const [label, id] of Object.entries(identity)) {
    const owner = await aliasUserUnlocked(db, appId, label, id);
    if (owner !== undefined) owners.set(label, owner);
  }
  const installs = new Map(subs.map((sub) => [storedToken(platformOf(sub.type), sub.token), null as string | null]));
  if (installs.size) {
    for (const row of await usersOfTokens(db, appId, [...installs.keys()], '')) installs.set(row.token, row.user_id);
  }
  await lockUsers(db, [...owners.values(), ...installs.values()]);
  return { owners, installs };
}

/**
 * Locks the installs the body's tokens name (after their users: transaction.ts), and checks each
 * still has the user planned, or is already this user's (findUser may have joined it).
 */
async function lockPlannedInstalls(db: PoolClient, appId: string, planned: Map<string, string | null>, userId: string): Promise<void> {
  if (!planned.size) return;
  for (const row of await usersOfTokens(db, appId, [...planned.keys()], ' ORDER BY id FOR UPDATE')) {
    if (row.user_id !== (planned.get(row.token) ?? null) && row.user_id !== userId) throw new StalePlan();
  }
}

/** The app's installs of these tokens with their users; `lock`: '' (a plan) or the clause that locks them. */
async function usersOfTokens(db: PoolClient, appId: string, tokens: string[], lock: '' | ' ORDER BY id FOR UPDATE'): Promise<Array<{ token: string; user_id: string | null }>> {
  return (await db.query<{ token: string; user_id: string | null }>(`SELECT token, user_id FROM subscriptions WHERE app_id = $1 AND token = ANY($2::text[])${lock}`, [appId, tokens])).rows;
}

/** An install given in the body: registered, or the one with its token moved to this user (`enabled: false` of a subscribed one reported: app-unsubscribe.ts). */
export async function attachInstall(db: PoolClient, appId: string, userId: string, sub: UserSubscriptionBody): Promise<{ id: string; created: boolean }> {
  const hasEnv = 'test_type' in sub;
  const platform = platformOf(sub.type);
  const token = storedToken(platform, sub.token);
  const unsubscribing = sub.enabled === false && (await lockSubscribed(db, appId, { token }));
  const environment = hasEnv ? TEST_TYPE_ENVIRONMENT[String(sub.test_type)] ?? null : null;
  const res = await db.query<{ id: string; created: boolean }>(
    `INSERT INTO subscriptions (id, app_id, token, user_id, subscribed, unsubscribed_reason, environment, registered_at, last_active, platform)
     VALUES ($1, $2, $3, $4, coalesce($5, true), CASE WHEN $5 = false THEN $8 END, $6, now(), now(), $9)
     ON CONFLICT (app_id, token) DO UPDATE SET user_id = EXCLUDED.user_id,
       subscribed = coalesce($5, subscriptions.subscribed),
       unsubscribed_reason = CASE WHEN $5 = true THEN NULL WHEN $5 = false THEN $8 ELSE subscriptions.unsubscribed_reason END,
       environment = CASE WHEN $7 THEN EXCLUDED.environment ELSE subscriptions.environment END,
       registered_at = now(), updated_at = now()
     WHERE subscriptions.platform = EXCLUDED.platform
     RETURNING id, (xmax = 0) AS created`,
    [randomUUID(), appId, token, userId, sub.enabled ?? null, environment, hasEnv, UNSUBSCRIBED_BY_APP, platform],
  );
  // The token is an install of the other platform (docs/decisions.md "the same token under the other platform").
  if (!res.rowCount) throw platformClash(platform);
  if (unsubscribing) await recordAppUnsubscribe(db, appId, res.rows[0].id);
  return res.rows[0];
}
