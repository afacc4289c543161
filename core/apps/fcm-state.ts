// The state of an App's Firebase credentials as people read it: the controller's
// FcmCredentialsReady condition and the dashboard's Settings page say the same sentences, made
// here (as credentials-state.ts does for APNs). Why applying the App left it without usable
// Firebase credentials is kept with the app (apps.fcm_reason / fcm_problem, migration 070): the
// dashboard cannot read the App's status.
import type { Queryable } from '../store/db.js';
import type { FcmServiceAccount } from '../fcm/credentials-store.js';

/** What follows for the app's Android devices while its Firebase credentials are not usable. */
export const ANDROID_SKIPPED_SENTENCE = "The app's Android devices are skipped.";

/** The reason when the App names no Firebase credentials (an iOS-only App: nothing is wrong). */
export const FCM_NOT_CONFIGURED = 'NotConfigured';

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export const fcmNotConfiguredSentence = () => `No Firebase credentials are configured (spec.fcm). ${ANDROID_SKIPPED_SENTENCE}`;

/** The condition's message when applying the App found a problem with its Firebase credentials. */
export const fcmProblemSentence = (problem: string) => `${capitalise(problem)}. ${ANDROID_SKIPPED_SENTENCE}`;

/** The condition's message for stored, usable Firebase credentials. */
export const fcmValidSentence = (account: Pick<FcmServiceAccount, 'projectId' | 'clientEmail'>) =>
  `Service account ${account.clientEmail} of Firebase project ${account.projectId} has a readable RSA key.`;

/** Keeps (or clears, `problem` undefined) why applying the App left it without usable Firebase credentials. */
export async function recordFcmProblem(db: Queryable, appId: string, problem?: { reason: string; message: string }): Promise<void> {
  await db.query('UPDATE apps SET fcm_reason = $2, fcm_problem = $3 WHERE id = $1', [appId, problem?.reason ?? null, problem?.message ?? null]);
}

export interface FcmState {
  ready: boolean;
  /** CamelCase, as the condition's reason. */
  reason: string;
  message: string;
  projectId?: string;
  clientEmail?: string;
  updatedAt?: Date;
}

/** The app's Firebase credentials state; never reads the private key. */
export async function readFcmState(db: Queryable, appId: string): Promise<FcmState> {
  const res = await db.query<{ reason: string | null; problem: string | null; project_id: string | null; client_email: string | null; updated_at: Date | null }>(
    `SELECT a.fcm_reason AS reason, a.fcm_problem AS problem, f.project_id, f.client_email, f.updated_at
       FROM apps a LEFT JOIN fcm_credentials f ON f.app_id = a.id WHERE a.id = $1`,
    [appId],
  );
  const r = res.rows[0];
  if (r?.project_id && r.client_email) {
    const account = { projectId: r.project_id, clientEmail: r.client_email };
    return { ...account, updatedAt: r.updated_at ?? undefined, ready: true, reason: 'CredentialsValid', message: fcmValidSentence(account) };
  }
  if (r?.reason && r.problem) return { ready: false, reason: r.reason, message: fcmProblemSentence(r.problem) };
  return { ready: false, reason: FCM_NOT_CONFIGURED, message: fcmNotConfiguredSentence() };
}
