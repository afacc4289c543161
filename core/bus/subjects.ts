// Names on the bus. Every name carries the install's prefix so several installs (or test files)
// share one NATS server without seeing each other's work.

export interface BusNames {
  /** Work-queue stream of jobs, each taken by exactly one sender. */
  workStream: string;
  /** Limits stream of send lifecycle events (the controller's mirror reads it). */
  eventStream: string;
  /** The durable pull consumer every sender shares. */
  senderConsumer: string;
  subject(relative: string): string;
}

export function busNames(prefix: string): BusNames {
  const p = prefix.replace(/[^A-Za-z0-9_-]/g, '_');
  return {
    workStream: `${p}_WORK`,
    eventStream: `${p}_EVENTS`,
    senderConsumer: `${p}_senders`,
    subject: (relative) => `${p.toLowerCase()}.${relative}`,
  };
}

/** Relative subjects (the outbox stores these; `BusNames.subject` adds the prefix). */
export const SUBJECTS = {
  planJob: 'work.plan', // { sendId }: page the audience into chunk jobs
  chunkJob: 'work.chunk', // { sendId, chunk, ... }: deliver up to 500 devices
  sendEvent: (kind: string) => `events.send.${kind}`, // created | progress | finished
} as const;
