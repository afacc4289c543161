// Live Activity token facts reported to the app's event destinations (docs/events.md "Live
// Activities"), each recorded in the transaction that removes the token (core/events/record.ts):
//
// | fact                                                        | event                          |
// | Apple refused an update or push-to-start token (a chunk)    | live_activity.token.removed,   |
// |                                                             |   Apple's reason (410: its     |
// |                                                             |   timestamp)                   |
// | an `end` push Apple accepted: its update token dropped      | live_activity.ended, by "push" |
// | the app removed an update token (the SDK: the activity      | live_activity.ended, by "app"  |
// |   ended on the device)                                      |                                |
// | the app removed a push-to-start token                       | live_activity.token.removed,   |
// |                                                             |   reason "app"                 |
//
// A Live Activity push records no message.push.* (docs/decisions.md "Issue 28 — event kinds").
// Only a token actually removed is reported: one registered again since (a newer token, a 410
// older than the registration) stays, and so says nothing.
import type { Queryable } from '../store/db.js';
import type { LiveActivityRequest } from '../send-model/request.js';
import type { RefusedToken } from '../send-model/devices.js';
import { recordDeviceEvents, type DeviceEventEntry } from '../events/record.js';
import { dropEndedTokens, removeLiveActivityToken, removeRefusedTokens, tokensOf, type LiveActivityTokenKey, type LiveActivityTokenKind, type RemovedToken } from './tokens.js';

/** Which token, as `event.data` names it: the activity's update token or the type's push-to-start token. */
function tokenData(kind: LiveActivityTokenKind, activity: string): Record<string, string> {
  return kind === 'update' ? { token: 'update', activity_id: activity } : { token: 'push_to_start', activity_type: activity };
}

function removedEvents(kind: LiveActivityTokenKind, activity: string, removed: RemovedToken[]): DeviceEventEntry[] {
  return removed.map((r) => [
    'live_activity.token.removed',
    r.subscriptionId,
    { ...tokenData(kind, activity), reason: r.reason, ...(r.appleTimestampMs === null ? {} : { apple_timestamp: r.appleTimestampMs }) },
  ]);
}

const endedEvent = (subscriptionId: string, activityId: string, endedBy: 'push' | 'app'): DeviceEventEntry => ['live_activity.ended', subscriptionId, { activity_id: activityId, ended_by: endedBy }];

/**
 * A Live Activity chunk's tokens (core/delivery/chunks.ts recordChunk, in its transaction): the
 * refused ones removed, an `end`'s delivered ones dropped, and their events as one record.
 */
export async function settleLiveActivityTokens(
  db: Queryable, appId: string, sendId: number, la: LiveActivityRequest, refused: RefusedToken[], ended: Array<{ subscriptionId: string; token: string }>,
): Promise<void> {
  const removed = await removeRefusedTokens(db, appId, la, refused);
  // The devices this end reached ended their activity: nothing more goes to those tokens. The
  // others (failed, left out, an exhausted chunk, a token registered since) keep theirs.
  const dropped = la.event === 'end' ? await dropEndedTokens(db, appId, la.activityId, ended) : [];
  const { kind, activity } = tokensOf(la);
  await recordDeviceEvents(db, appId, sendId, [...removedEvents(kind, activity, removed), ...dropped.map((id) => endedEvent(id, la.activityId, 'push'))]);
}

/** The SDK's removal call, in the caller's transaction with its event (no send: no `message`). false: there was no such token. */
export async function removeTokenForApp(db: Queryable, key: LiveActivityTokenKey): Promise<boolean> {
  if (!(await removeLiveActivityToken(db, key))) return false;
  const event: DeviceEventEntry = key.kind === 'update'
    ? endedEvent(key.subscriptionId, key.activity, 'app')
    : ['live_activity.token.removed', key.subscriptionId, { ...tokenData(key.kind, key.activity), reason: 'app' }];
  await recordDeviceEvents(db, key.appId, null, [event]);
  return true;
}
