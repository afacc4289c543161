// The one status writer of the controllers (Apps and Sends): write the status subresource only
// when it changed, so an unchanged reconcile costs no API call; an object deleted meanwhile is
// not an error (its next event, if any, reconciles it).
import type { CustomObjectsApi } from '@kubernetes/client-node';
import { GROUP, VERSION, isNotFound, type KubeObject } from './client.js';
import { jsonEqual } from './conditions.js';

export interface StatusWrite<Status> {
  custom: CustomObjectsApi;
  /** The resource's plural (`apps`, `sends`). */
  plural: string;
  object: KubeObject<unknown, Status>;
  status: Status;
  /** Waits for the caller's write rate limiter, only when a write is due. */
  beforeWrite?: () => Promise<void>;
}

export async function writeStatus<Status>({ custom, plural, object, status, beforeWrite }: StatusWrite<Status>): Promise<void> {
  if (jsonEqual(object.status ?? {}, status)) return;
  await beforeWrite?.();
  try {
    await custom.patchNamespacedCustomObjectStatus({
      group: GROUP, version: VERSION, namespace: object.metadata.namespace!, plural, name: object.metadata.name,
      body: [{ op: 'add', path: '/status', value: status }],
    });
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}
