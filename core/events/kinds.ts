// The kinds of events Herald records for an app's destinations (docs/events.md): one list, read by
// the manifest's check, the App CRD's schema, the recorder and the expansion. OneSignal's Event
// Streams names where it has one (`message.push.*`); Herald's own for a send's life and for Live
// Activity tokens, in the same dotted style.
export const EVENT_KINDS = [
  'message.push.sent',
  'message.push.failed',
  'message.push.clicked',
  'subscription.push.unsubscribed',
  'notification.created',
  'notification.finished',
  'notification.canceled',
  'notification.paused',
  'live_activity.token.removed',
  'live_activity.ended',
] as const;

export type EventKind = (typeof EVENT_KINDS)[number];

export function isEventKind(value: unknown): value is EventKind {
  return typeof value === 'string' && (EVENT_KINDS as readonly string[]).includes(value);
}

/** The kinds a send's own life produces (one record each). */
export type NotificationEventKind = Extract<EventKind, `notification.${string}`>;

/** The kinds about one install (device events): each carries `subscription` and `user`. */
export type DeviceEventKind = Exclude<EventKind, NotificationEventKind>;

export const isNotificationEventKind = (kind: EventKind): kind is NotificationEventKind => kind.startsWith('notification.');
