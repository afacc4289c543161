// A recorded row made into the events a destination receives (docs/events.md): a chunk record into
// one event per device outcome, a send's life step into one event. An event's id is derived from
// its row and its place in it, so every expansion of a row (a retry, another destination, a
// replay) gives each event the same id: receivers deduplicate on it.
import { createHash } from 'node:crypto';
import type { EventKind, NotificationEventKind } from './kinds.js';
import type { ChunkRecordBody, DeviceEventsRecordBody, NotificationRecordBody } from './record.js';

export interface RecordRow {
  id: number;
  appId: string;
  /** null: a fact of no send (the app removed a Live Activity token): its events have no `message`. */
  sendId: number | null;
  /** 'chunk': a chunk's delivery outcomes; 'device_events': other device events, each with its kind; else one send event. */
  kind: 'chunk' | 'device_events' | NotificationEventKind;
  body: ChunkRecordBody | DeviceEventsRecordBody | NotificationRecordBody;
  recordedAt: Date;
}

/** An event as sent: OneSignal's Event Streams field names where they exist. */
export interface HeraldEvent {
  event: {
    kind: EventKind;
    id: string;
    timestamp: number; // Unix seconds
    datetime: string; // ISO 8601, UTC
    app_id: string;
    /** OneSignal's names: the platform of the install (issue 39 point 6). */
    subscription_device_type?: 'iOS' | 'Android';
    data?: Record<string, unknown>;
  };
  /** The send; absent for a fact of no send (the app removed a Live Activity token). */
  message?: { id: string };
  subscription?: { id: string };
  user?: { external_id: string | null };
  notification?: NotificationRecordBody;
}

/** The event's UUID: SHA-256 of (row, place), laid out as an RFC 9562 version 8 UUID. */
export function eventId(recordId: number, index: number): string {
  const h = createHash('sha256').update(`herald-event:${recordId}:${index}`).digest();
  h[6] = (h[6] & 0x0f) | 0x80;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** A chunk row's device events in their fixed order: sent, failed, then each refusal as failed + unsubscribed. */
function deviceEvents(body: ChunkRecordBody): Array<{ kind: EventKind; subscriptionId: string | null; data: Record<string, unknown> }> {
  return [
    ...body.s.map((id) => ({ kind: 'message.push.sent' as const, subscriptionId: id, data: {} })),
    ...body.f.map(([id, reason]) => ({ kind: 'message.push.failed' as const, subscriptionId: id, data: { reason } })),
    ...body.u.flatMap(([id, reason, appleMs]) => {
      const data: Record<string, unknown> = { reason };
      if (appleMs !== null) data.apple_timestamp = appleMs;
      return [
        { kind: 'message.push.failed' as const, subscriptionId: id, data: { reason } },
        { kind: 'subscription.push.unsubscribed' as const, subscriptionId: id, data },
      ];
    }),
  ];
}

/** A row's device events in their order (chunk: the fixed order above; device_events: as recorded). */
function devicesOf(row: Pick<RecordRow, 'kind' | 'body'>): Array<{ kind: EventKind; subscriptionId: string | null; data: Record<string, unknown> }> {
  if (row.kind === 'chunk') return deviceEvents(row.body as ChunkRecordBody);
  return (row.body as DeviceEventsRecordBody).d.map(([kind, subscriptionId, data]) => ({ kind, subscriptionId, data }));
}

/**
 * Each event of a row in its order, its kind and install only (no event built, no id hashed): a
 * batch finds where it ends, and which installs it needs, with these before expanding.
 */
export function eventSlots(row: Pick<RecordRow, 'kind' | 'body'>): ReadonlyArray<{ kind: EventKind; subscriptionId: string | null }> {
  if (row.kind !== 'chunk' && row.kind !== 'device_events') return [{ kind: row.kind, subscriptionId: null }];
  return devicesOf(row);
}

/** How many events a row expands to (a destination's place inside a row counts these). */
export function eventCount(row: Pick<RecordRow, 'kind' | 'body'>): number {
  if (row.kind === 'device_events') return (row.body as DeviceEventsRecordBody).d.length;
  if (row.kind !== 'chunk') return 1;
  const b = row.body as ChunkRecordBody;
  return b.s.length + b.f.length + 2 * b.u.length;
}

/**
 * The events of a row from `from` (its place in the row) on, every one of them: the caller filters
 * by kind after, so places and ids do not depend on a destination's filter. `externalIds`: the
 * installs' external ids (an install erased since has none). `existingOnly`: `externalIds` holds
 * every install of the app that still exists, and one missing from it is delivered as erased (no
 * subscription, no user): a record committed while its install was being erased (the erasure's
 * scrub ran before that commit) still never carries the erased id to a receiver. `android`: the
 * installs on Android, read with their external ids; every other install's events say iOS (an
 * install erased since is not read, and keeps the field's value from before Android).
 */
export function expandRecord(
  row: RecordRow, externalIds: ReadonlyMap<string, string | null>, from = 0, opts: { existingOnly?: boolean; to?: number; android?: ReadonlySet<string> } = {},
): HeraldEvent[] {
  // What every event of the row shares, made once: a 1,000,000-device send is a million events.
  const timestamp = Math.floor(row.recordedAt.getTime() / 1000);
  const datetime = row.recordedAt.toISOString();
  const message = row.sendId === null ? undefined : { id: String(row.sendId) };
  if (row.kind !== 'chunk' && row.kind !== 'device_events') {
    if (from > 0 || opts.to === 0) return [];
    const event: HeraldEvent = { event: { kind: row.kind, id: eventId(row.id, 0), timestamp, datetime, app_id: row.appId } };
    if (message) event.message = message;
    event.notification = row.body as NotificationRecordBody;
    return [event];
  }
  const devices = devicesOf(row);
  const to = Math.min(opts.to ?? devices.length, devices.length);
  const events: HeraldEvent[] = [];
  for (let i = from; i < to; i++) {
    const d = devices[i];
    const type = d.subscriptionId !== null && opts.android?.has(d.subscriptionId) ? 'Android' : 'iOS';
    const event: HeraldEvent = { event: { kind: d.kind, id: eventId(row.id, i), timestamp, datetime, app_id: row.appId, subscription_device_type: type, data: d.data } };
    if (message) event.message = message;
    // An install erased since (core/events/record.ts forgetInstallsInEvents): its event keeps
    // its place and id, with no subscription and no user.
    if (d.subscriptionId !== null && (!opts.existingOnly || externalIds.has(d.subscriptionId))) {
      event.subscription = { id: d.subscriptionId };
      event.user = { external_id: externalIds.get(d.subscriptionId) ?? null };
    }
    events.push(event);
  }
  return events;
}

/** The installs a chunk row names (for one external-id lookup per batch). */
export function subscriptionIdsOf(row: Pick<RecordRow, 'kind' | 'body'>): string[] {
  if (row.kind === 'device_events') return (row.body as DeviceEventsRecordBody).d.map(([, id]) => id).filter((id): id is string => id !== null);
  if (row.kind !== 'chunk') return [];
  const b = row.body as ChunkRecordBody;
  return [...b.s, ...b.f.map(([id]) => id), ...b.u.map(([id]) => id)].filter((id): id is string => id !== null);
}
