// The kinds of events Herald records for an app's destinations (docs/events.md): one list, read by
// the manifest's check, the App CRD's schema, the recorder and the expansion. OneSignal's Event
// Streams names where it has one (`message.push.*`); Herald's own for a send's life.
export const EVENT_KINDS = [
  'message.push.sent',
  'message.push.failed',
  'subscription.push.unsubscribed',
  'notification.created',
  'notification.finished',
  'notification.canceled',
] as const;

export type EventKind = (typeof EVENT_KINDS)[number];

export function isEventKind(value: unknown): value is EventKind {
  return typeof value === 'string' && (EVENT_KINDS as readonly string[]).includes(value);
}

/** The kinds a send's own life produces (one record each). */
export type NotificationEventKind = Extract<EventKind, `notification.${string}`>;
