// The state of an App's push credentials as people read it: the controller's CredentialsReady
// condition and the dashboard's Settings page say the same sentences, made here. What the
// dashboard cannot read from the App's status (it has no cluster access) is kept with the app when
// it is applied (apps.credentials_reason / credentials_problem, migration 075), and Apple's latest
// refusal of the stored credentials is read from the send it stopped.
import type { Queryable } from '../store/db.js';
import type { StoredCredentials } from './credentials.js';

/** What follows for the app's sends when its credentials are not usable. */
export const DRAFTS_SENTENCE = 'Sends of this app are saved as drafts and not delivered.';

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** What follows instead when the app has usable Firebase credentials (issue 39): it still sends. */
export const FIREBASE_ONLY_SENTENCE = 'Its sends reach its Android devices through Firebase only.';

/** The APNs condition's reason when the App names Firebase credentials and no APNs ones: a choice. */
export const APNS_NOT_CONFIGURED = 'NotConfigured';
export const APNS_NOT_CONFIGURED_SENTENCE = 'No APNs credentials are configured (spec.credentials): the app sends through Firebase only.';

/** The condition's message when applying the App found a problem (`firebaseReady`: it still sends through FCM). */
export const problemSentence = (problem: string, firebaseReady = false) => `${capitalise(problem)}. ${firebaseReady ? FIREBASE_ONLY_SENTENCE : DRAFTS_SENTENCE}`;

/** The condition's message for stored, usable credentials. */
export function validSentence(creds: Pick<StoredCredentials, 'kind' | 'keyId' | 'teamId' | 'expiresAt'>): string {
  const what = creds.kind === 'token' ? `Token key ${creds.keyId} of team ${creds.teamId} is a valid ES256 key` : 'The push certificate is readable';
  return creds.expiresAt ? `${what}; it expires on ${new Date(creds.expiresAt).toISOString()}.` : `${what}.`;
}

/** Keeps (or clears, `problem` undefined) why applying the App left it without usable credentials. */
export async function recordCredentialsProblem(db: Queryable, appId: string, problem?: { reason: string; message: string }): Promise<void> {
  await db.query('UPDATE apps SET credentials_reason = $2, credentials_problem = $3 WHERE id = $1', [appId, problem?.reason ?? null, problem?.message ?? null]);
}

export interface CredentialsState {
  ready: boolean;
  /** CamelCase, as the condition's reason. */
  reason: string;
  message: string;
  kind?: 'token' | 'certificate';
  keyId?: string;
  teamId?: string;
  expiresAt?: Date;
  /** Apple refused the stored credentials for a send since they were stored (its reason). */
  refused?: { sendId: number; reason: string; at: Date };
}

/** How far back Apple's refusals are looked for (the sends of these days, by the list's index). */
const REFUSALS_DAYS = 7;

/** The app's credentials state at `now`; never reads the key material. */
export async function readCredentialsState(db: Queryable, appId: string, now: Date): Promise<CredentialsState> {
  const res = await db.query<{ reason: string | null; problem: string | null; has_fcm: boolean; kind: CredentialsState['kind'] | null; key_id: string | null; team_id: string | null; expires_at: Date | null; refused_id: string | null; refused_reason: string | null; refused_at: Date | null }>(
    `SELECT a.credentials_reason AS reason, a.credentials_problem AS problem, c.kind, c.key_id, c.team_id, c.expires_at,
            EXISTS (SELECT 1 FROM fcm_credentials f WHERE f.app_id = a.id) AS has_fcm,
            r.id AS refused_id, r.stop_detail AS refused_reason, r.updated_at AS refused_at
       FROM apps a LEFT JOIN app_credentials c ON c.app_id = a.id
       LEFT JOIN LATERAL (
         SELECT s.id, s.stop_detail, s.updated_at FROM sends s
          WHERE s.app_id = a.id AND coalesce(s.send_after, s.created_at) >= $2::timestamptz - make_interval(days => $3)
            AND s.stopped = 'credentials' AND s.updated_at >= c.updated_at
          ORDER BY coalesce(s.send_after, s.created_at) DESC LIMIT 1) r ON true
      WHERE a.id = $1`,
    [appId, now, REFUSALS_DAYS],
  );
  const r = res.rows[0];
  if (!r?.kind) {
    if (r?.has_fcm && (!r.reason || r.reason === 'NoCredentials')) return { ready: false, reason: APNS_NOT_CONFIGURED, message: APNS_NOT_CONFIGURED_SENTENCE };
    const problem = r?.problem ?? 'no credentials are configured';
    return { ready: false, reason: r?.reason ?? 'NoCredentials', message: problemSentence(problem, r?.has_fcm) };
  }
  const stored = { kind: r.kind, keyId: r.key_id ?? undefined, teamId: r.team_id ?? undefined, expiresAt: r.expires_at ?? undefined };
  const refused = r.refused_id ? { sendId: Number(r.refused_id), reason: r.refused_reason ?? 'refused', at: r.refused_at! } : undefined;
  if (stored.expiresAt && stored.expiresAt.getTime() <= now.getTime()) {
    return { ...stored, refused, ready: false, reason: 'CertificateExpired', message: problemSentence(`the push certificate expired on ${stored.expiresAt.toISOString()}`) };
  }
  return { ...stored, refused, ready: true, reason: 'CredentialsValid', message: validSentence(stored) };
}
