// FcmCredentialsReady: the App's Firebase credentials (spec.fcm, issue 39) as `kubectl get apps`
// and `kubectl describe app` show them, beside CredentialsReady for APNs. An App may have either
// or both; one usable is enough to send (core/apps/sendable.ts hasPushCredentials).
import type { Pool } from '../../core/store/db.js';
import type { AppliedApp } from '../../core/apps/file-source.js';
import { FCM_NOT_CONFIGURED, fcmNotConfiguredSentence, fcmProblemSentence, readFcmState, ANDROID_SKIPPED_SENTENCE } from '../../core/apps/fcm-state.js';
import type { ConditionInput } from '../kube/conditions.js';
import { APNS_NOT_CONFIGURED, APNS_NOT_CONFIGURED_SENTENCE } from '../../core/apps/credentials-state.js';

export const FCM_CONDITION = 'FcmCredentialsReady';

/** The condition for what applying the App did with spec.fcm. */
export async function fcmCondition(pool: Pool, applied: AppliedApp, namespace: string, secretsUnreadable: boolean): Promise<ConditionInput> {
  if (!applied.fcmConfigured) return { type: FCM_CONDITION, status: 'False', reason: FCM_NOT_CONFIGURED, message: fcmNotConfiguredSentence() };
  if (applied.fcmProblem && secretsUnreadable) {
    return { type: FCM_CONDITION, status: 'False', reason: 'SecretsNotReadable', message: `The controller may not list Secrets in namespace ${namespace}: add it to the chart's controller.appNamespaces. ${ANDROID_SKIPPED_SENTENCE}` };
  }
  if (applied.fcmProblem) return { type: FCM_CONDITION, status: 'False', reason: applied.fcmReason ?? 'FcmCredentialsInvalid', message: fcmProblemSentence(applied.fcmProblem) };
  const state = await readFcmState(pool, applied.app.id);
  return { type: FCM_CONDITION, status: state.ready ? 'True' : 'False', reason: state.reason, message: state.message };
}

/** CredentialsReady of an App that names no APNs credentials but Firebase ones: nothing is wrong. */
export const APNS_NOT_CONFIGURED_CONDITION: ConditionInput = { type: 'CredentialsReady', status: 'False', reason: APNS_NOT_CONFIGURED, message: APNS_NOT_CONFIGURED_SENTENCE };
