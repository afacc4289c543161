// The file adapter of the app source port: applies App manifests (and their Secrets) from a YAML
// file to the store, once (`herald apps apply -f`) or on every change of the file (HERALD_APPS_FILE).
// The Kubernetes adapter (controller/) applies the same manifests through applyApp.
import { readFile } from 'node:fs/promises';
import { watch } from 'node:fs';
import type { Pool, Queryable } from '../store/db.js';
import type { Logger } from '../log.js';
import { parseManifests, type AppManifest } from './manifest.js';
import { setCredentials, upsertApp, type AppRecord } from './app-store.js';
import { credentialsFromSecret, CredentialsError } from './credentials.js';
import { recordCredentialsProblem } from './credentials-state.js';
import { fcmCredentialsFromSecret } from './fcm-credentials.js';
import { recordFcmProblem } from './fcm-state.js';
import { setFcmCredentials } from '../fcm/credentials-store.js';
import { inTransaction } from '../store/db.js';
import { checkEventsSpec, DestinationError, signingSecretOf, storeDestinations, type DestinationSpec } from '../events/destinations.js';

export interface AppliedApp {
  app: AppRecord;
  /** Why the push credentials are not usable (the app's sends become drafts), if they are not. */
  credentialsProblem?: string;
  /** A CamelCase reason for the same problem (the controller's CredentialsReady condition). */
  credentialsReason?: string;
  /** spec.fcm names Firebase credentials (whether or not they are usable). */
  fcmConfigured: boolean;
  /** Why the Firebase credentials named in spec.fcm are not usable (Android devices are skipped), if they are not. */
  fcmProblem?: string;
  /** A CamelCase reason for the same problem (the controller's FcmCredentialsReady condition). */
  fcmReason?: string;
  /** Why the event destinations were not applied (the ones stored before stay), if they were not. */
  eventsProblem?: DestinationError;
}

export interface ApplyOptions {
  /** HERALD_EVENT_HTTP_HOSTS: hosts a destination may reach over plain http. */
  eventHttpHosts?: readonly string[];
}

/** Applies one manifest: app row, billing, segments, credentials. */
export async function applyApp(pool: Pool, manifest: AppManifest, secrets: Map<string, Record<string, Buffer>>, opts: ApplyOptions = {}): Promise<AppliedApp> {
  // The destinations and their secrets are read before the transaction; a problem leaves the
  // stored ones as they were and is reported (a bad webhook never stops the app's pushes).
  let destinations: Array<DestinationSpec & { secret: string }> | undefined;
  let eventsProblem: DestinationError | undefined;
  try {
    destinations = checkEventsSpec(manifest.spec.events, opts.eventHttpHosts ?? []).map((d) => ({ ...d, secret: signingSecretOf(d, secrets) }));
  } catch (error) {
    if (!(error instanceof DestinationError)) throw error;
    eventsProblem = error;
  }
  return inTransaction(pool, async (db) => {
    const app = await upsertApp(db, {
      name: manifest.namespace ? `${manifest.namespace}/${manifest.name}` : manifest.name,
      appId: manifest.spec.appId,
      bundleId: manifest.spec.bundleId,
      environment: manifest.spec.environment,
      invoiceOverdue: manifest.spec.billing?.invoiceOverdue ?? false,
      segments: manifest.spec.segments,
      liveActivityBroadcast: manifest.spec.liveActivities?.broadcast ?? false,
    });
    let credentialsProblem: string | undefined;
    let credentialsReason: string | undefined;
    const creds = manifest.spec.credentials;
    if (!creds) {
      credentialsProblem = 'no credentials are configured';
      credentialsReason = 'NoCredentials';
      await setCredentials(db, app.id, null);
    } else {
      const data = secrets.get(creds.secretRef.name);
      try {
        if (!data) throw new CredentialsError('SecretMissing', `Secret ${creds.secretRef.name} was not found`);
        await setCredentials(db, app.id, credentialsFromSecret(creds, data));
      } catch (error) {
        if (!(error instanceof CredentialsError)) throw error;
        credentialsProblem = error.message;
        credentialsReason = error.reason;
        await setCredentials(db, app.id, null);
      }
    }
    // Kept for the dashboard, which cannot read the App's CredentialsReady condition.
    await recordCredentialsProblem(db, app.id, credentialsProblem ? { reason: credentialsReason ?? 'CredentialsInvalid', message: credentialsProblem } : undefined);
    const fcm = await applyFcm(db, app.id, manifest.spec.fcm, secrets);
    if (destinations) await storeDestinations(db, app.id, destinations, { stream: manifest.spec.events?.stream === true });
    const hasApnsCredentials = !credentialsProblem;
    const hasFcmCredentials = fcm.configured && !fcm.problem;
    return {
      app: { ...app, hasApnsCredentials, hasFcmCredentials, hasCredentials: hasApnsCredentials || hasFcmCredentials },
      credentialsProblem, credentialsReason, fcmConfigured: fcm.configured, fcmProblem: fcm.problem, fcmReason: fcm.reason, eventsProblem,
    };
  });
}

/** Stores (or removes) the App's Firebase credentials and keeps why they are not usable. */
async function applyFcm(db: Queryable, appId: string, spec: AppManifest['spec']['fcm'], secrets: Map<string, Record<string, Buffer>>): Promise<{ configured: boolean; problem?: string; reason?: string }> {
  if (!spec) {
    await setFcmCredentials(db, appId, null);
    await recordFcmProblem(db, appId, undefined);
    return { configured: false };
  }
  try {
    const data = secrets.get(spec.secretRef.name);
    if (!data) throw new CredentialsError('SecretMissing', `Secret ${spec.secretRef.name} was not found`);
    await setFcmCredentials(db, appId, fcmCredentialsFromSecret(spec, data));
    await recordFcmProblem(db, appId, undefined);
    return { configured: true };
  } catch (error) {
    if (!(error instanceof CredentialsError)) throw error;
    await setFcmCredentials(db, appId, null);
    await recordFcmProblem(db, appId, { reason: error.reason, message: error.message });
    return { configured: true, problem: error.message, reason: error.reason };
  }
}

export async function applyAppsFile(pool: Pool, path: string, opts: ApplyOptions = {}): Promise<AppliedApp[]> {
  const set = parseManifests(await readFile(path, 'utf8'), path, opts.eventHttpHosts);
  const applied: AppliedApp[] = [];
  for (const manifest of set.apps) applied.push(await applyApp(pool, manifest, set.secrets, opts));
  return applied;
}

/** Applies the file now and again whenever it changes. Returns a stop function. */
export async function watchAppsFile(pool: Pool, path: string, logger: Logger, opts: ApplyOptions = {}): Promise<() => void> {
  const apply = async () => {
    try {
      for (const { app, credentialsProblem, fcmProblem, eventsProblem } of await applyAppsFile(pool, path, opts)) {
        logger.info({ app: app.name, appId: app.id, credentialsProblem, fcmProblem, eventsProblem: eventsProblem?.message }, 'app applied');
      }
    } catch (error) {
      logger.error({ err: error, path }, 'apps file not applied');
    }
  };
  await apply();
  let timer: NodeJS.Timeout | undefined;
  const watcher = watch(path, () => {
    clearTimeout(timer);
    timer = setTimeout(apply, 200); // editors write a file in several steps
  });
  return () => {
    clearTimeout(timer);
    watcher.close();
  };
}
