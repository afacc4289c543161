// Events for what a person running `kubectl describe` needs to know (STYLE.md "Controller").
// Recorded on transitions, not on every reconcile; the same event for the same object is
// suppressed for 10 minutes so a resync or a retry loop never floods the namespace.
import { randomBytes } from 'node:crypto';
import type { CoreV1Api, CoreV1Event } from '@kubernetes/client-node';
import type { Logger } from '../../core/log.js';
import { describeKubeError, type ObjectMeta } from './client.js';

export type EventType = 'Normal' | 'Warning';

export interface EventRecorder {
  record(obj: { apiVersion?: string; kind?: string; metadata: ObjectMeta }, type: EventType, reason: string, message: string): void;
}

const SUPPRESS_MS = 10 * 60_000;
export const COMPONENT = 'herald-controller';

export function eventRecorder(core: CoreV1Api, logger: Logger, instance: string): EventRecorder {
  const recent = new Map<string, number>();
  return {
    record(obj, type, reason, message) {
      const namespace = obj.metadata.namespace ?? 'default';
      const dedupe = `${obj.metadata.uid}|${type}|${reason}|${message}`;
      const now = Date.now();
      if ((recent.get(dedupe) ?? 0) > now - SUPPRESS_MS) return;
      recent.set(dedupe, now);
      if (recent.size > 10_000) for (const [k, at] of recent) if (at <= now - SUPPRESS_MS) recent.delete(k);
      const at = new Date();
      const body: CoreV1Event = {
        metadata: { name: `${obj.metadata.name}.${randomBytes(8).toString('hex')}`, namespace },
        involvedObject: {
          apiVersion: obj.apiVersion,
          kind: obj.kind,
          name: obj.metadata.name,
          namespace,
          uid: obj.metadata.uid,
          resourceVersion: obj.metadata.resourceVersion,
        },
        type,
        reason,
        message,
        count: 1,
        firstTimestamp: at,
        lastTimestamp: at,
        source: { component: COMPONENT },
        reportingComponent: COMPONENT,
        reportingInstance: instance,
      };
      // Fire and forget: an Event that cannot be written must never fail a reconcile.
      core.createNamespacedEvent({ namespace, body }).catch((error: unknown) =>
        logger.debug({ err: describeKubeError(error), reason }, 'event not recorded'),
      );
    },
  };
}
