// Deletes Send objects older than the retention (HERALD_SEND_RETENTION_SECONDS, default a day).
// Age counts from when the send was made (a mirror's annotation; else the object's creation).
// A send still running or scheduled is kept until it finishes: its object is the only place
// `kubectl get sends` can show it. The rows in PostgreSQL stay (GET stats keeps working).
import type { CustomObjectsApi } from '@kubernetes/client-node';
import type { Logger } from '../../core/log.js';
import { isFinalStatus } from '../../core/send-model/states.js';
import { GROUP, VERSION, describeKubeError, isNotFound } from '../kube/client.js';
import { getCondition } from '../kube/conditions.js';
import { CREATED_AT_ANNOTATION, SEND_PLURAL, type SendObject } from './types.js';

export function expired(send: SendObject, retentionMs: number, now: Date): boolean {
  const made = send.metadata.annotations?.[CREATED_AT_ANNOTATION] ?? send.metadata.creationTimestamp;
  if (!made) return false;
  const age = now.getTime() - new Date(made).getTime();
  if (age < retentionMs) return false;
  const done = (send.status?.status && isFinalStatus(send.status.status)) || getCondition(send.status?.conditions, 'Accepted')?.status === 'False';
  return Boolean(done);
}

export async function sweepSends(
  deps: { custom: CustomObjectsApi; logger: Logger; list: () => ReadonlyArray<SendObject> },
  retentionMs: number,
  now = new Date(),
): Promise<number> {
  let deleted = 0;
  for (const send of deps.list()) {
    if (send.metadata.deletionTimestamp || !expired(send, retentionMs, now)) continue;
    try {
      await deps.custom.deleteNamespacedCustomObject({
        group: GROUP, version: VERSION, namespace: send.metadata.namespace!, plural: SEND_PLURAL, name: send.metadata.name,
        body: { preconditions: { uid: send.metadata.uid } },
      });
      deleted += 1;
    } catch (error) {
      if (!isNotFound(error)) deps.logger.warn({ send: send.metadata.name, err: describeKubeError(error) }, 'send not deleted');
    }
  }
  if (deleted) deps.logger.info({ deleted }, 'old sends deleted');
  return deleted;
}
