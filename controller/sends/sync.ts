// Reconciles one Send: a mirror (made by the controller for a REST send) or an accepted Send only
// follows its row in PostgreSQL; a new kubectl Send is submitted once (submit.ts). Status is
// written only when it changed, through the caller's rate limiter.
//
// Tenancy: anyone who may create Sends in a namespace can write any annotation, so the
// send-id annotation alone never makes a mirror. A Send shows a send only when that send belongs
// to the Send's own App (spec.appRef in the Send's namespace), and a mirror must also carry the
// labels the controller writes (mirror.ts). Otherwise it is refused with Accepted=False.
import type { CustomObjectsApi } from '@kubernetes/client-node';
import type { Logger } from '../../core/log.js';
import { isFinalStatus } from '../../core/send-model/states.js';
import { getAppByName } from '../../core/apps/app-store.js';
import { cancelSend } from '../../core/send/cancel.js';
import { splitKey } from '../kube/client.js';
import { getCondition, setCondition, type ConditionInput } from '../kube/conditions.js';
import type { EventRecorder } from '../kube/events.js';
import { writeStatus } from '../kube/status.js';
import type { ReconcileResult } from '../kube/work-queue.js';
import { countsFromRow, readSendRows, type SendRowWithMessage } from './status-sync.js';
import { submitSend, type SubmitDeps } from './submit.js';
import { APP_LABEL, SEND_ID_ANNOTATION, SEND_PLURAL, SOURCE_LABEL, type SendObject, type SendObjectStatus } from './types.js';

export interface SendSyncDeps extends SubmitDeps {
  custom: CustomObjectsApi;
  events: EventRecorder;
  logger: Logger;
  getSend(namespace: string, name: string): SendObject | undefined;
  /** The newest row the status poller read for this key, if any (saves a query). */
  takeRow(key: string): SendRowWithMessage | undefined;
  /** Waits for the write rate limiter. */
  beforeWrite(): Promise<void>;
  /** The uid of an App (informer cache), to check a mirror's owner. */
  appUid?: (namespace: string, name: string) => string | undefined;
  /** Send uid → status written after its submission, until the cache shows it (or after a failed write). */
  submitted: Map<string, SendObjectStatus>;
}

export async function syncSend(deps: SendSyncDeps, key: string): Promise<ReconcileResult | void> {
  const { namespace, name } = splitKey(key);
  const cached = deps.getSend(namespace, name);
  if (!cached || cached.metadata.deletionTimestamp) return;
  const send: SendObject = structuredClone(cached);
  const now = deps.now?.() ?? new Date();
  const generation = send.metadata.generation;
  const before = send.status ?? {};
  const status: SendObjectStatus = { ...before };
  const setAccepted = (c: ConditionInput) => (status.conditions = setCondition(status.conditions, c, generation, now));
  const write = () => writeStatus({ custom: deps.custom, plural: SEND_PLURAL, object: send, status, beforeWrite: deps.beforeWrite });
  let result: ReconcileResult | undefined;

  const remembered = deps.submitted.get(send.metadata.uid!);
  if (status.id === undefined && remembered) Object.assign(status, remembered);
  else if (remembered) deps.submitted.delete(send.metadata.uid!);

  if (status.id === undefined) {
    const mirrorOf = send.metadata.annotations?.[SEND_ID_ANNOTATION];
    if (mirrorOf !== undefined) {
      if (getCondition(status.conditions, 'Accepted')?.status === 'False') return; // refused for good
      const problem = await mirrorProblem(deps, send, mirrorOf);
      if (problem) {
        setAccepted({ type: 'Accepted', status: 'False', reason: 'NotAMirror', message: problem });
        deps.events.record(send, 'Warning', 'NotAMirror', problem);
        status.message = problem;
        status.observedGeneration = generation;
        await write();
        return;
      }
      status.id = Number(mirrorOf);
      status.source = 'api';
      setAccepted({ type: 'Accepted', status: 'True', reason: 'Mirrored', message: `Made through the REST API as send ${mirrorOf}; shown here, never sent again.` });
    } else {
      if (getCondition(status.conditions, 'Accepted')?.status === 'False') return; // refused for good; spec is immutable
      if (send.spec.cancel) {
        // Cancelled before it was ever submitted: nothing to send, nothing recorded.
        setAccepted({ type: 'Accepted', status: 'False', reason: 'Canceled', message: 'spec.cancel was set before the send was made; nothing was sent.' });
        status.canceled = true;
        status.observedGeneration = generation;
        await write();
        return;
      }
      const outcome = await submitSend(deps, send);
      setAccepted(outcome.condition);
      status.source = 'kubernetes';
      if (outcome.kind === 'accepted') {
        status.id = outcome.created.body.id;
        deps.submitted.set(send.metadata.uid!, { ...status });
        deps.events.record(send, 'Normal', outcome.condition.reason, outcome.condition.message);
        deps.logger.info({ send: key, sendId: status.id, status: outcome.created.body.status, replayed: outcome.replayed }, 'send submitted');
      } else {
        if (outcome.kind === 'refused') deps.events.record(send, 'Warning', outcome.condition.reason, outcome.condition.message);
        else result = { requeueAfterMs: outcome.retryMs };
        status.message = outcome.condition.message; // the MESSAGE column of kubectl get sends -o wide
        status.observedGeneration = generation;
        await write();
        return result;
      }
    }
  }

  await showRow(deps, key, send, status, before.status, setAccepted);
  if (generation !== undefined) status.observedGeneration = generation;
  await write();
  return result;
}

/** The send's row shown on the Send (its counts, a Finished event once), a spec.cancel carried out; SendNotFound when the row is gone or another app's. */
async function showRow(deps: SendSyncDeps, key: string, send: SendObject, status: SendObjectStatus, previous: SendObjectStatus['status'], setAccepted: (c: ConditionInput) => void): Promise<void> {
  const found = deps.takeRow(key) ?? (await readSendRows(deps.pool, [status.id!])).get(status.id!);
  // A status.id of another app's send (written by someone with access to sends/status) shows nothing.
  let row = found && (await appIdOf(deps, send)) === found.app_id ? found : undefined;
  if (row && send.spec.cancel && !row.canceled_at && !isFinalStatus(row.status)) {
    // spec.cancel: the same stop as the REST cancel. (Deleting the Send object never cancels.)
    await cancelSend(deps.pool, row.app_id, Number(row.id));
    deps.events.record(send, 'Normal', 'Canceled', `Send ${row.id} canceled: no new chunk starts.`);
    row = (await readSendRows(deps.pool, [status.id!])).get(status.id!);
  }
  if (row) {
    Object.assign(status, countsFromRow(row));
    if (isFinalStatus(row.status) && (!previous || !isFinalStatus(previous))) {
      deps.events.record(send, 'Normal', 'Finished',
        `Send ${row.id} is ${row.status}: ${status.sent} sent, ${status.failed} failed, ${status.skipped} skipped of ${status.total}.`);
    }
  } else {
    // Deleted from PostgreSQL (or another database): say so rather than show stale numbers.
    setAccepted({ type: 'Accepted', status: 'False', reason: 'SendNotFound', message: `Send ${status.id} is not in Herald's database.` });
  }
}

/** The id of the Send's own App (spec.appRef in the Send's namespace), if it exists. */
async function appIdOf(deps: SendSyncDeps, send: SendObject): Promise<string | undefined> {
  return (await getAppByName(deps.pool, `${send.metadata.namespace}/${send.spec.appRef?.name}`))?.id;
}

/** Why a Send annotated as a mirror is not one, or undefined when it is (see the header). */
async function mirrorProblem(deps: SendSyncDeps, send: SendObject, mirrorOf: string): Promise<string | undefined> {
  const notMirror = `This Send is not a mirror made by Herald: ${SEND_ID_ANNOTATION} is set only by the controller, on sends of this Send's own App.`;
  const labels = send.metadata.labels ?? {};
  if (!/^\d{1,18}$/.test(mirrorOf) || labels[SOURCE_LABEL] !== 'api' || labels[APP_LABEL] !== send.spec.appRef?.name) return notMirror;
  const owner = deps.appUid?.(send.metadata.namespace!, send.spec.appRef.name);
  const owned = (send.metadata.ownerReferences ?? []).some((o) => o.kind === 'App' && o.name === send.spec.appRef.name && (!deps.appUid || o.uid === owner));
  if (!owned) return notMirror;
  const appId = await appIdOf(deps, send);
  const row = appId && (await readSendRows(deps.pool, [Number(mirrorOf)])).get(Number(mirrorOf));
  return row && row.app_id === appId ? undefined : notMirror;
}
