// Reconciles one App (the cert-manager skeleton): read from the cache → return when gone →
// finalizer on delete → compute (the same applyApp as the file adapter, then keys) → write status
// only when it changed. User-visible problems become condition reasons and Warning events.
import { APNS_NOT_CONFIGURED, DRAFTS_SENTENCE, problemSentence, validSentence } from '../../core/apps/credentials-state.js';
import type { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import type { Logger } from '../../core/log.js';
import type { Pool } from '../../core/store/db.js';
import { applyApp, type AppliedApp } from '../../core/apps/file-source.js';
import { AppIdConflictError, disableApp, getAppByName, getCredentials, type AppRecord } from '../../core/apps/app-store.js';
import { readChannelHealth } from '../../core/live-activities/channel-health.js';
import { GROUP, VERSION, isNotFound, splitKey, type ObjectMeta } from '../kube/client.js';
import { getCondition, setCondition, type Condition, type ConditionInput } from '../kube/conditions.js';
import type { EventRecorder } from '../kube/events.js';
import { writeStatus } from '../kube/status.js';
import type { ReconcileResult } from '../kube/work-queue.js';
import { appDestinationHealth } from '../../core/events/health.js';
import { EVENTS_HEALTHY, eventsHealthCondition, eventsSummary } from './event-health.js';
import { syncKeys } from './keys.js';
import { APNS_NOT_CONFIGURED_CONDITION, FCM_CONDITION, fcmCondition } from './fcm-condition.js';
import { FCM_NOT_CONFIGURED } from '../../core/apps/fcm-state.js';
import { syncIdentity } from './identity.js';
import { APP_FINALIZER, APP_PLURAL, secretNamesOf, storeName, type AppObject, type AppStatus } from './types.js';

export interface AppSyncDeps {
  pool: Pool;
  custom: CustomObjectsApi;
  core: CoreV1Api;
  events: EventRecorder;
  logger: Logger;
  getApp(namespace: string, name: string): AppObject | undefined;
  getSecretData(namespace: string, name: string): Record<string, Buffer> | undefined;
  /** Whether the namespace's Secret cache is filled (secret-caches.ts). */
  secretsState?(namespace: string): 'ready' | 'waiting' | 'unreadable';
  /** HERALD_EVENT_HTTP_HOSTS (core/events/destination-url.ts). */
  eventHttpHosts?: readonly string[];
  now?: () => Date;
}

const DAY = 86_400_000;
/** Warn this long before a push certificate expires. */
const EXPIRY_WARNING_MS = 30 * DAY;

export async function syncApp(deps: AppSyncDeps, key: string): Promise<ReconcileResult | void> {
  const { namespace, name } = splitKey(key);
  const cached = deps.getApp(namespace, name);
  if (!cached) return; // deleted; the finalizer has already done its work
  const app: AppObject = structuredClone(cached);
  const log = deps.logger.child({ app: key });
  const now = deps.now?.() ?? new Date();

  if (app.metadata.deletionTimestamp) return finalize(deps, app, log);
  if (!app.metadata.finalizers?.includes(APP_FINALIZER)) {
    await patchMeta(deps.custom, app.metadata, [
      app.metadata.finalizers ? { op: 'add', path: '/metadata/finalizers/-', value: APP_FINALIZER } : { op: 'add', path: '/metadata/finalizers', value: [APP_FINALIZER] },
    ]);
    return; // the update comes back through the informer and is reconciled then
  }

  const generation = app.metadata.generation;
  const conditions = new ConditionList(app.status?.conditions ?? [], generation, now);
  const status: AppStatus = { ...app.status };
  let result: ReconcileResult | undefined;

  const secretsState = deps.secretsState?.(namespace) ?? 'ready';
  if (secretsState === 'waiting') return { requeueAfterMs: 500 }; // the cache fills, then it comes back
  const secrets = new Map<string, Record<string, Buffer>>();
  for (const ref of secretNamesOf(app.spec)) {
    const data = deps.getSecretData(namespace, ref);
    if (data) secrets.set(ref, data);
  }

  try {
    const applied = await applyApp(deps.pool, { name, namespace, spec: { ...app.spec, appId: app.spec.appId ?? app.status?.appId } }, secrets, { eventHttpHosts: deps.eventHttpHosts });
    status.appId = applied.app.id;
    await setEventsConditions(deps, app, applied, conditions, status, now);
    result = await setCredentialsCondition(deps, app, applied, conditions, secretsState === 'unreadable' ? namespace : undefined, now);
    conditions.set(await fcmCondition(deps.pool, applied, namespace, secretsState === 'unreadable'));

    const overdue = app.spec.billing?.invoiceOverdue === true;
    conditions.set(overdue
      ? { type: 'DeliveryPaused', status: 'True', reason: 'InvoiceOverdue', message: 'The invoice for this app is overdue: new sends are refused (402) and running sends stop before their next chunk.' }
      : { type: 'DeliveryPaused', status: 'False', reason: 'InvoicePaid', message: 'Delivery is not paused.' });

    await setBroadcastCondition(deps.pool, applied.app, (c) => conditions.set(c), () => conditions.drop('BroadcastChannelsReady'));

    const keys = await syncKeys(deps, app, applied.app.id);
    status.keys = keys.keys;
    const identity = await syncIdentity(deps, app, applied.app.id);
    if (identity) status.identity = identity;
    conditions.set(readyCondition(applied, conditions.list, keys.problem, overdue));
  } catch (error) {
    if (!(error instanceof AppIdConflictError)) throw error;
    conditions.set({ type: 'Ready', status: 'False', reason: 'AppIdConflict', message: error.message });
  }

  status.conditions = conditions.list;
  if (generation !== undefined) status.observedGeneration = generation;
  recordTransitions(deps.events, app, app.status?.conditions, conditions.list);
  await writeStatus({ custom: deps.custom, plural: APP_PLURAL, object: app, status });
  return result;
}

/** The App's conditions as this reconcile sets them (each stamped with the generation it saw). */
class ConditionList {
  constructor(public list: Condition[], private readonly generation: number | undefined, private readonly now: Date) {}

  set(c: ConditionInput): void {
    this.list = setCondition(this.list, c, this.generation, this.now);
  }

  drop(type: string): void {
    this.list = this.list.filter((c) => c.type !== type);
  }
}

/** EventsReady (its destinations applied) and EventsHealthy (how they deliver), for an App that names destinations. */
async function setEventsConditions(deps: AppSyncDeps, app: AppObject, applied: AppliedApp, conditions: ConditionList, status: AppStatus, now: Date): Promise<void> {
  // Only an App that names destinations has the condition (the others have no events to speak of).
  const destinations = app.spec.events?.destinations?.length ?? 0;
  if (applied.eventsProblem) {
    conditions.set({ type: 'EventsReady', status: 'False', reason: applied.eventsProblem.reason, message: `${capitalise(applied.eventsProblem.message)}. The destinations stay as they were; pushes are not affected.` });
  } else if (destinations) {
    conditions.set({ type: 'EventsReady', status: 'True', reason: 'DestinationsApplied', message: `${destinations} event destination${destinations === 1 ? '' : 's'} applied.` });
  } else {
    conditions.drop('EventsReady');
  }
  // How its destinations deliver, from PostgreSQL (the dispatcher's rows); the watch in
  // event-health.ts brings the App back here when one changes state.
  const health = await appDestinationHealth(deps.pool, applied.app.id);
  if (health.length) {
    conditions.set(eventsHealthCondition(health, now));
    status.events = { summary: eventsSummary(health) };
  } else {
    conditions.drop(EVENTS_HEALTHY);
    delete status.events;
  }
}

/**
 * CredentialsReady (APNs); a certificate's expiry warned of, and the App requeued for when it
 * expires. `unreadableNamespace`: the App's namespace when the controller may not list its Secrets.
 */
async function setCredentialsCondition(deps: AppSyncDeps, app: AppObject, applied: AppliedApp, conditions: ConditionList, unreadableNamespace: string | undefined, now: Date): Promise<ReconcileResult | undefined> {
  if (applied.credentialsProblem && !app.spec.credentials && applied.fcmConfigured) {
    conditions.set(APNS_NOT_CONFIGURED_CONDITION);
  } else if (applied.credentialsProblem && unreadableNamespace) {
    conditions.set({ type: 'CredentialsReady', status: 'False', reason: 'SecretsNotReadable', message: `The controller may not list Secrets in namespace ${unreadableNamespace}: add it to the chart's controller.appNamespaces. ${DRAFTS_SENTENCE}` });
  } else if (applied.credentialsProblem) {
    conditions.set({ type: 'CredentialsReady', status: 'False', reason: applied.credentialsReason ?? 'CredentialsInvalid', message: problemSentence(applied.credentialsProblem, applied.app.hasFcmCredentials) });
  } else {
    const creds = await getCredentials(deps.pool, applied.app.id);
    const expires = creds?.expiresAt ? new Date(creds.expiresAt) : undefined;
    conditions.set({ type: 'CredentialsReady', status: 'True', reason: 'CredentialsValid', message: validSentence(creds ?? { kind: 'certificate' }) });
    if (expires) {
      if (expires.getTime() - now.getTime() < EXPIRY_WARNING_MS) {
        deps.events.record(app, 'Warning', 'CertificateExpiresSoon', `The push certificate expires on ${expires.toISOString()}; renew it before then.`);
      }
      // Come back when it expires, so the condition flips and sends become drafts on time.
      return { requeueAfterMs: Math.max(1000, Math.min(DAY, expires.getTime() - now.getTime() + 1000)) };
    }
  }
  return undefined;
}

/** Ready: the keys synced, one usable credential, APNs or Firebase (core/apps/sendable.ts), and no overdue invoice. */
function readyCondition(applied: AppliedApp, conditions: Condition[], keysProblem: { reason: string; message: string } | undefined, overdue: boolean): ConditionInput {
  const usable = ['CredentialsReady', FCM_CONDITION].some((type) => getCondition(conditions, type)?.status === 'True');
  if (keysProblem) return { type: 'Ready', status: 'False', ...keysProblem };
  if (!usable) return { type: 'Ready', status: 'False', reason: 'CredentialsNotReady', message: `Push credentials are not usable; see CredentialsReady${applied.fcmConfigured ? ` and ${FCM_CONDITION}` : ''}.` };
  if (overdue) return { type: 'Ready', status: 'False', reason: 'DeliveryPaused', message: 'Delivery is paused for an overdue invoice; see DeliveryPaused.' };
  return { type: 'Ready', status: 'True', reason: 'Ready', message: `App ${applied.app.id} is ready to send.` };
}

/** The App is being deleted: disable it (keys revoked, sends and counts kept), then let it go. */
async function finalize(deps: AppSyncDeps, app: AppObject, log: Logger): Promise<void> {
  if (!app.metadata.finalizers?.includes(APP_FINALIZER)) return;
  const appId = app.status?.appId ?? (await getAppByName(deps.pool, storeName(app)))?.id;
  if (appId) {
    await disableApp(deps.pool, appId);
    log.info({ appId }, 'app disabled');
  }
  const remaining = app.metadata.finalizers.filter((f) => f !== APP_FINALIZER);
  await patchMeta(deps.custom, app.metadata, [{ op: 'replace', path: '/metadata/finalizers', value: remaining }]);
}

/** A JSON patch guarded by resourceVersion: if the App changed meanwhile it fails and is retried. */
async function patchMeta(custom: CustomObjectsApi, meta: ObjectMeta, ops: object[]): Promise<void> {
  try {
    await custom.patchNamespacedCustomObject({
      group: GROUP, version: VERSION, namespace: meta.namespace!, plural: APP_PLURAL, name: meta.name,
      body: [{ op: 'test', path: '/metadata/resourceVersion', value: meta.resourceVersion }, ...ops],
    });
  } catch (error) {
    if (isNotFound(error)) return;
    throw error;
  }
}

/** Events for condition flips a person should see in `kubectl describe app`. */
function recordTransitions(events: EventRecorder, app: AppObject, before: Condition[] | undefined, after: Condition[]): void {
  for (const c of after) {
    const old = getCondition(before, c.type);
    if (old && old.status === c.status && old.reason === c.reason) continue;
    if (!old && c.status === 'False' && c.type === 'DeliveryPaused') continue; // nothing happened
    if (c.type === 'CredentialsReady' || c.type === FCM_CONDITION) {
      // Not configured is a choice (an iOS-only or Android-only App), not a problem to warn of.
      if (c.status === 'True') events.record(app, 'Normal', c.type, c.message);
      else if (![FCM_NOT_CONFIGURED, APNS_NOT_CONFIGURED].includes(c.reason)) events.record(app, 'Warning', c.type === FCM_CONDITION ? fcmEventReason(c.reason) : c.reason, c.message);
    } else if (c.type === 'EventsReady' || c.type === 'BroadcastChannelsReady') {
      if (c.status === 'False') events.record(app, 'Warning', c.reason, c.message);
    } else if (c.type === EVENTS_HEALTHY) {
      if (c.status === 'False') events.record(app, 'Warning', c.reason, c.message);
      else if (old) events.record(app, 'Normal', 'EventDestinationsRecovered', c.message);
    } else if (c.type === 'DeliveryPaused') {
      if (c.status === 'True') events.record(app, 'Warning', 'DeliveryPaused', c.message);
      else events.record(app, 'Normal', 'DeliveryResumed', 'The invoice is paid: new sends are accepted again. Sends stopped by the pause stay finished.');
    } else if (c.type === 'Ready' && c.status === 'True') {
      events.record(app, 'Normal', 'Ready', c.message);
    } else if (c.type === 'Ready' && !['CredentialsNotReady', 'DeliveryPaused'].includes(c.reason)) {
      events.record(app, 'Warning', c.reason, c.message);
    }
  }
}

/**
 * BroadcastChannelsReady, for an App with spec.liveActivities.broadcast only: False while its
 * channel management fails (the latest outcome, core/live-activities/channel-health.ts, read at
 * each reconcile and resync), Live Activity pushes then going per token only.
 */
async function setBroadcastCondition(pool: Pool, app: AppRecord, set: (c: ConditionInput) => void, remove: () => void): Promise<void> {
  if (!app.liveActivityBroadcast) return remove();
  const health = await readChannelHealth(pool, app.id);
  if (health?.failing) {
    set({
      type: 'BroadcastChannelsReady', status: 'False', reason: `Channel${capitalise(health.stage)}Failed`,
      message: `Apple's broadcast channel ${health.stage} failed (${health.reason}) at ${health.failedAt?.toISOString()}: Live Activity pushes go per token only until a channel call succeeds.`,
    });
  } else {
    set({ type: 'BroadcastChannelsReady', status: 'True', reason: 'ChannelsWorking', message: 'Live Activity updates go to broadcast channels (Apple\'s channel management answers).' });
  }
}

/** A Firebase problem's Event reason says Firebase (SecretMissing alone would read as the APNs Secret's). */
const fcmEventReason = (reason: string) => (reason.startsWith('Fcm') ? reason : `Fcm${reason}`);

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
