// "May this app send now": the one rule, for every path that accepts, plans, fires, claims or
// sweeps a send, and for the backlog figures (a chunk of an app that may not send is no work for a
// sender). Written once, as a table; the TypeScript check and the SQL fragment both read it.
// A stop reason says why in the send's final message (core/send-model/transitions.ts).

/** What the rule reads of an app (core/apps/app-store.ts AppRecord; not imported: app-store reads the SQL below). */
interface AppRecord {
  disabled: boolean;
  invoiceOverdue: boolean;
}

export type HaltReason = 'disabled' | 'paused';

/** In order: the first that holds is the reason. */
const HALTS: readonly { reason: HaltReason; column: string; holds: (app: Pick<AppRecord, 'disabled' | 'invoiceOverdue'>) => boolean }[] = [
  // The App was deleted from the cluster (or its manifest removed): its row stays, disabled.
  { reason: 'disabled', column: 'disabled', holds: (app) => app.disabled },
  // An invoice past its due date: the contract's pause.
  { reason: 'paused', column: 'invoice_overdue', holds: (app) => app.invoiceOverdue },
];

/** Why `app` may not send now (undefined when it may). No app at all is a deleted one. */
export function haltReason(app: Pick<AppRecord, 'disabled' | 'invoiceOverdue'> | undefined): HaltReason | undefined {
  if (!app) return 'disabled';
  return HALTS.find((h) => h.holds(app))?.reason;
}

/** The same rule in SQL over the apps table aliased `alias`: true when the app may send now. */
export function sendableSql(alias: string): string {
  return `NOT (${HALTS.map((h) => `${alias}.${h.column}`).join(' OR ')})`;
}

/** The halt reason in SQL (NULL when the app may send), for a sweep that stops sends. */
export function haltReasonSql(alias: string): string {
  return `CASE ${HALTS.map((h) => `WHEN ${alias}.${h.column} THEN '${h.reason}'`).join(' ')} END`;
}

// Whether the app can deliver at all: its sends are drafts (the contract's `draft`) when it has
// neither APNs credentials nor Firebase ones. One of them is enough: an iOS-only, an Android-only
// and a two-platform App all send (issue 39); which devices each reaches is the sender's matter.
const CREDENTIAL_TABLES = ['app_credentials', 'fcm_credentials'] as const;

/** The same rule in TypeScript, over what the app record says it has. */
export function hasPushCredentials(app: { hasApnsCredentials: boolean; hasFcmCredentials: boolean }): boolean {
  return app.hasApnsCredentials || app.hasFcmCredentials;
}

/** The rule in SQL over the apps table aliased `alias`: true when the app has any push credentials. */
export function hasPushCredentialsSql(alias: string): string {
  return `(${CREDENTIAL_TABLES.map((t) => `EXISTS (SELECT 1 FROM ${t} WHERE ${t}.app_id = ${alias}.id)`).join(' OR ')})`;
}
