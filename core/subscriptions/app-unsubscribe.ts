// The app's own unsubscribe (the SDK's `subscribed: false`, a Subscription's `enabled: false`)
// reported to its event destinations as subscription.push.unsubscribed with reason `app`
// (docs/events.md "Kinds"), in the transaction that makes it. Only a change is reported: an install
// that was subscribed and is no longer. A repeat, an install Apple had unsubscribed already (its
// reason becomes `app`, its state does not change) and one registered unsubscribed say nothing.
import type { Queryable } from '../store/db.js';
import { recordDeviceEvents } from '../events/record.js';

/** Why an install is not subscribed when the app itself said so (else Apple's reason is kept). */
export const UNSUBSCRIBED_BY_APP = 'app';

/**
 * Whether the install (by token or id) is subscribed now, its row locked to the commit so that
 * two calls saying `false` at once cannot both see it subscribed. Only a call saying `false` asks
 * (no other call can unsubscribe), so registrations pay nothing more; the lock is the one the
 * write takes next anyway (docs/decisions.md "lock order": the install's row last).
 */
export async function lockSubscribed(db: Queryable, appId: string, key: { token: string } | { id: string }): Promise<boolean> {
  const res = 'token' in key
    ? await db.query<{ subscribed: boolean }>('SELECT subscribed FROM subscriptions WHERE app_id = $1 AND token = $2 FOR UPDATE', [appId, key.token])
    : await db.query<{ subscribed: boolean }>('SELECT subscribed FROM subscriptions WHERE app_id = $1 AND id = $2::uuid FOR UPDATE', [appId, key.id]);
  return res.rows[0]?.subscribed === true;
}

/** The event of an install the app just unsubscribed; a fact of no send (no `message`). Nothing for an app with no destination (record.ts). */
export async function recordAppUnsubscribe(db: Queryable, appId: string, installId: string): Promise<void> {
  await recordDeviceEvents(db, appId, null, [['subscription.push.unsubscribed', installId, { reason: UNSUBSCRIBED_BY_APP }]]);
}
