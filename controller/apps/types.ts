// The App custom resource (crds/apps.herald.dev.yaml) as the controller reads and writes it.
import type { AppManifest } from '../../core/apps/manifest.js';
import type { KubeObject } from '../kube/client.js';
import type { Condition } from '../kube/conditions.js';

export type AppSpec = AppManifest['spec'];

export interface AppKeyStatus {
  name: string;
  id?: string;
  secretName?: string;
  createdAt?: string;
  revokedAt?: string;
}

export interface AppStatus {
  appId?: string;
  observedGeneration?: number;
  conditions?: Condition[];
  keys?: AppKeyStatus[];
  identity?: { secretName: string; rotation: number };
  /** Its event destinations in a word for `kubectl get apps` (event-health.ts eventsSummary). */
  events?: { summary: string };
}

export type AppObject = KubeObject<AppSpec, AppStatus>;

export const APP_PLURAL = 'apps';
export const APP_KIND = 'App';
/** Holds an App until the controller has disabled it in PostgreSQL (keys revoked, history kept). */
export const APP_FINALIZER = 'herald.dev/disable-app';

/** The Secrets an App reads: its push credentials' (APNs and Firebase) and its event destinations' signing secrets. */
export function secretNamesOf(spec: Partial<AppSpec> | undefined): string[] {
  const names = [spec?.credentials?.secretRef?.name, spec?.fcm?.secretRef?.name, ...(Array.isArray(spec?.events?.destinations) ? spec.events.destinations.map((d) => d?.secretRef?.name) : [])];
  return [...new Set(names.filter((n): n is string => typeof n === 'string' && n !== ''))];
}

/** The app's name in PostgreSQL: `<namespace>/<name>` for cluster apps (file apps have no namespace). */
export const storeName = (app: { metadata: { namespace?: string; name: string } }) => `${app.metadata.namespace}/${app.metadata.name}`;
