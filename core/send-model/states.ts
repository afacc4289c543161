// The statuses a send takes and the groups every reader asks about, written once: the TypeScript
// checks and the SQL fragments both read this table (the model: core/apps/sendable.ts). Which
// status a send moves to, and when, is the transitions table's business (transitions.ts); this
// module imports nothing, so core/delivery may read it without an import circle.

/** In the order the api documents them (the OpenAPI enum, the list filter). */
const STATES = {
  // An accepted broadcast waiting for its first chunk to start.
  queued: { final: false, underway: true, sent: true },
  // Delivering (a list send from its acceptance, a broadcast from its first chunk).
  sending: { final: false, underway: true, sent: true },
  // Waiting for its time (send_after), or a time zone send delivering zone by zone.
  scheduled: { final: false, underway: false, sent: false },
  // Over, having reached at least one device (or an empty audience).
  approved: { final: true, underway: false, sent: true },
  // Over without reaching anyone: not sent, stopped, or saved without credentials.
  draft: { final: true, underway: false, sent: false },
} as const satisfies Record<string, { final: boolean; underway: boolean; sent: boolean }>;

export type SendStatus = keyof typeof STATES;
export const SEND_STATUSES = Object.keys(STATES) as SendStatus[];
/** approved | draft */
export type FinalStatus = { [S in SendStatus]: (typeof STATES)[S]['final'] extends true ? S : never }[SendStatus];
/** queued | sending | scheduled */
export type RunningStatus = Exclude<SendStatus, FinalStatus>;

/**
 * The groups: `final` (nothing moves it again; finished_at is set), `running` (not final: it may
 * still deliver, be stopped or canceled), `underway` (being delivered now, not waiting for a time:
 * a send the planner plans, the backlog counts and the partial indexes `sends_running` and
 * `sends_unplanned` hold), `sent` (its audience went or is going out: not waiting for its time,
 * not a draft that never reached anyone; the dashboard's "sends an install was in").
 */
export type StatusGroup = 'final' | 'running' | 'underway' | 'sent';

const IN_GROUP: Record<StatusGroup, (s: SendStatus) => boolean> = {
  final: (s) => STATES[s].final,
  running: (s) => !STATES[s].final,
  underway: (s) => STATES[s].underway,
  sent: (s) => STATES[s].sent,
};

export const statusesIn = (group: StatusGroup): SendStatus[] => SEND_STATUSES.filter(IN_GROUP[group]);

export const isFinalStatus = (s: SendStatus): s is FinalStatus => STATES[s].final;
export const isRunningStatus = (s: SendStatus): s is RunningStatus => !STATES[s].final;
export const isUnderwayStatus = (s: SendStatus): boolean => STATES[s].underway;

/** `column IN ('…', …)`: the group in SQL, over a status column such as `s.status`. */
export function statusInSql(column: string, group: StatusGroup): string {
  return `${column} IN (${statusesIn(group).map((s) => `'${s}'`).join(', ')})`;
}

/**
 * A send accepted for delivery now whose chunks are not recorded yet: the planner's work, in SQL
 * over the sends table aliased `alias` ('' for none). The partial index sends_unplanned has the
 * same predicate.
 */
export function unplannedSql(alias = ''): string {
  const a = alias ? `${alias}.` : '';
  return `${a}chunks_total IS NULL AND ${statusInSql(`${a}status`, 'underway')}`;
}

/**
 * A send whose chunks may still be claimed: an underway send, or a time zone send (scheduled)
 * whose chunks are planned and wait for their zones. The pause sweep stops these.
 */
export function deliveringSql(alias = ''): string {
  const a = alias ? `${alias}.` : '';
  return `(${statusInSql(`${a}status`, 'underway')} OR (${a}status = 'scheduled' AND ${a}chunks_total IS NOT NULL))`;
}
