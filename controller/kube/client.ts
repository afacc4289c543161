// Kubernetes access for the controller: one KubeConfig, the typed API clients built from it, and
// the one place client failures are read (status codes of @kubernetes/client-node's ApiException).
import { CoordinationV1Api, CoreV1Api, CustomObjectsApi, KubeConfig, type KubernetesListObject, type KubernetesObject, type V1ObjectMeta } from '@kubernetes/client-node';

export const GROUP = 'herald.dev';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;

export interface KubeClients {
  kc: KubeConfig;
  custom: CustomObjectsApi;
  core: CoreV1Api;
  coordination: CoordinationV1Api;
}

/** From a kubeconfig file when given (tests, running outside a cluster), else the pod's service account. */
export function loadKubeConfig(path?: string): KubeConfig {
  const kc = new KubeConfig();
  if (path) kc.loadFromFile(path);
  else kc.loadFromCluster();
  return kc;
}

export function kubeClients(kc: KubeConfig): KubeClients {
  return {
    kc,
    custom: kc.makeApiClient(CustomObjectsApi),
    core: kc.makeApiClient(CoreV1Api),
    coordination: kc.makeApiClient(CoordinationV1Api),
  };
}

/** The watch path and the list call of a Herald resource (`plural`) in `namespace`, or in every namespace when it is undefined. */
export function customObjects<T extends KubernetesObject>(clients: KubeClients, plural: string, namespace: string | undefined): { path: string; list: () => Promise<KubernetesListObject<T>> } {
  return {
    path: namespace ? `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/${plural}` : `/apis/${GROUP}/${VERSION}/${plural}`,
    list: async () =>
      (namespace
        ? await clients.custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural })
        : await clients.custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural })) as KubernetesListObject<T>,
  };
}

/** The HTTP status of a failed API call, or undefined for a network failure. */
export function statusOf(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

export const isNotFound = (error: unknown) => statusOf(error) === 404;
export const isConflict = (error: unknown) => statusOf(error) === 409;
/** 422 from a JSON patch whose `test` op failed (the object changed under us): same meaning as 409. */
export const isStale = (error: unknown) => statusOf(error) === 409 || statusOf(error) === 422;

/** A short description of an API failure for logs and Events (never the request body). */
export function describeKubeError(error: unknown): string {
  const status = statusOf(error);
  const body = (error as { body?: unknown } | null)?.body;
  let message: string | undefined;
  if (typeof body === 'string') {
    try {
      message = (JSON.parse(body) as { message?: string }).message;
    } catch {
      message = body.slice(0, 200);
    }
  } else if (body && typeof body === 'object') {
    message = (body as { message?: string }).message;
  }
  return status ? `${status}: ${message ?? (error as Error).message}` : (error as Error)?.message ?? String(error);
}

/** What to do about a refusal, by HTTP status, said to the person reading the condition. */
const REMEDY: Record<number, string> = {
  401: "check the controller's ServiceAccount token",
  403: "give the controller's ServiceAccount that permission (for Secrets: list the namespace in the chart's controller.appNamespaces)",
  404: 'create what it names, or correct the name',
  409: 'it changed meanwhile; the controller tries again',
  422: 'correct what Kubernetes refused',
  429: 'the API server is busy; the controller tries again',
};

const MAX_MESSAGE_CHARS = 300;

/**
 * One sentence for a condition or an Event: the status, Kubernetes' reason and message, and what
 * to do, never the client's dump of the response (its headers and body). Other errors give their
 * first line.
 */
export function kubeErrorSentence(error: unknown): string {
  const status = statusOf(error);
  const firstLine = String((error as Error)?.message ?? error).split('\n')[0].slice(0, MAX_MESSAGE_CHARS);
  if (status === undefined) return firstLine;
  let body = (error as { body?: unknown }).body;
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body);
    } catch {
      body = undefined;
    }
  }
  const { reason, message } = (body && typeof body === 'object' ? body : {}) as { reason?: unknown; message?: unknown };
  const said = typeof message === 'string' && message ? `: ${message.slice(0, MAX_MESSAGE_CHARS)}` : '';
  const remedy = REMEDY[status] ?? (status >= 500 ? 'the API server failed; the controller tries again' : "see Kubernetes' message");
  return `Kubernetes answered ${status}${typeof reason === 'string' && reason ? ` ${reason}` : ''}${said}; ${remedy}.`;
}

/** Object metadata as the watch delivers it (times arrive as RFC 3339 text despite the typings). */
export type ObjectMeta = V1ObjectMeta & { name: string };

export interface KubeObject<Spec = unknown, Status = unknown> {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: Spec;
  status?: Status;
}

export const keyOf = (meta: { namespace?: string; name: string }) => `${meta.namespace ?? ''}/${meta.name}`;

export function splitKey(key: string): { namespace: string; name: string } {
  const i = key.indexOf('/');
  return { namespace: key.slice(0, i), name: key.slice(i + 1) };
}
