// Names on the bus. Every name carries the install's prefix so several installs (or test files)
// share one NATS server without seeing each other's work.

export interface BusNames {
  /** Limits stream of send lifecycle events (the controller's mirror reads it) and of the apps' events (core/events/stream.ts). */
  eventStream: string;
  subject(relative: string): string;
}

export function busNames(prefix: string): BusNames {
  const p = prefix.replace(/[^A-Za-z0-9_-]/g, '_');
  return {
    eventStream: `${p}_EVENTS`,
    subject: (relative) => `${p.toLowerCase()}.${relative}`,
  };
}

/** Relative subjects (the outbox stores these; `BusNames.subject` adds the prefix). */
export const SUBJECTS = {
  sendEvent: (kind: string) => `events.send.${kind}`, // created
} as const;
