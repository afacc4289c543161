// `App` manifests (the same YAML as the herald.dev/v1alpha1 custom resource) and the Secrets they
// reference, read from a file when no cluster is used (`herald apps apply -f`, HERALD_APPS_FILE).
import { parseAllDocuments } from 'yaml';
import type { SegmentDefinition } from './app-store.js';
import type { CredentialsSpec } from './credentials.js';
import type { FcmSpec } from './fcm-credentials.js';
import type { KeyScope } from './keys.js';
import { checkEventsSpec, DestinationError, type EventsSpec } from '../events/destinations.js';

export interface AppManifest {
  name: string;
  namespace?: string;
  spec: {
    appId?: string;
    bundleId: string;
    environment?: 'production' | 'sandbox';
    credentials?: CredentialsSpec;
    /** Firebase credentials: a Secret whose service-account.json is Google's service-account JSON (issue 39). */
    fcm?: FcmSpec;
    billing?: { invoiceOverdue?: boolean };
    segments?: SegmentDefinition[];
    apiKeys?: { name: string; allowIPs?: string[]; revoked?: boolean; scope?: KeyScope }[];
    identityVerification?: { required?: boolean; rotation?: number };
    /** broadcast: updates go as one request to Apple's broadcast channel of the activity (issue 29). */
    liveActivities?: { broadcast?: boolean };
    /** Webhook destinations of the app's events and its NATS stream (docs/events.md). */
    events?: EventsSpec;
  };
}

export interface ManifestSet {
  apps: AppManifest[];
  /** Secret name → decoded data. */
  secrets: Map<string, Record<string, Buffer>>;
}

export class ManifestError extends Error {
  override name = 'ManifestError';
}

/** `httpHosts`: HERALD_EVENT_HTTP_HOSTS, the hosts a destination may reach over plain http. */
export function parseManifests(yamlText: string, source = 'manifest', httpHosts: readonly string[] = []): ManifestSet {
  const set: ManifestSet = { apps: [], secrets: new Map() };
  for (const doc of parseAllDocuments(yamlText)) {
    if (doc.errors.length) throw new ManifestError(`${source}: ${doc.errors[0].message}`);
    const obj = doc.toJS() as Record<string, any> | null;
    if (!obj) continue;
    const name = obj.metadata?.name;
    if (typeof name !== 'string' || !name) throw new ManifestError(`${source}: a ${obj.kind ?? 'document'} has no metadata.name`);
    if (obj.kind === 'App') {
      if (typeof obj.spec?.bundleId !== 'string') throw new ManifestError(`${source}: App ${name} needs spec.bundleId`);
      // The CRD's schema refuses anything but a boolean; a file has no schema, so the same rule here.
      const broadcast = obj.spec.liveActivities?.broadcast;
      if (broadcast !== undefined && typeof broadcast !== 'boolean') {
        throw new ManifestError(`${source}: App ${name} spec.liveActivities.broadcast must be true or false`);
      }
      const fcm = obj.spec.fcm;
      if (fcm !== undefined && (typeof fcm?.secretRef?.name !== 'string' || !fcm.secretRef.name)) {
        throw new ManifestError(`${source}: App ${name} spec.fcm needs secretRef.name, the Secret holding service-account.json`);
      }
      try {
        checkEventsSpec(obj.spec.events, httpHosts);
      } catch (error) {
        if (error instanceof DestinationError) throw new ManifestError(`${source}: App ${name} ${error.message}`);
        throw error;
      }
      set.apps.push({ name, namespace: obj.metadata.namespace, spec: obj.spec });
    } else if (obj.kind === 'Secret') {
      const data: Record<string, Buffer> = {};
      for (const [k, v] of Object.entries(obj.data ?? {})) data[k] = Buffer.from(String(v), 'base64');
      for (const [k, v] of Object.entries(obj.stringData ?? {})) data[k] = Buffer.from(String(v), 'utf8');
      set.secrets.set(name, data);
    } else {
      throw new ManifestError(`${source}: kind ${obj.kind} is not App or Secret`);
    }
  }
  return set;
}
