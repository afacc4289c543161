// Mirrors REST sends as Send objects (HERALD_MIRROR_SENDS: all | broadcasts | none). It reads the
// `events.send.created` events from JetStream through its own durable consumer — never from the
// api's request path, so a slow or absent cluster cannot slow a REST call down. Creating the
// object is idempotent (its name is the send id), so a redelivered event or a new leader
// replaying the stream does nothing twice.
import { AckPolicy, DeliverPolicy, type Consumer, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import type { CustomObjectsApi } from '@kubernetes/client-node';
import type { Bus } from '../../core/bus/jetstream.js';
import { SUBJECTS } from '../../core/bus/subjects.js';
import type { MirrorMode } from '../../core/config.js';
import type { Logger } from '../../core/log.js';
import type { Pool } from '../../core/store/db.js';
import type { SendCreatedEvent } from '../../core/send/create-send.js';
import type { SendRequest } from '../../core/send-model/request.js';
import { GROUP, VERSION, describeKubeError, statusOf } from '../kube/client.js';
import { specFromRequest } from './spec.js';
import { APP_LABEL, CREATED_AT_ANNOTATION, SEND_ID_ANNOTATION, SEND_KIND, SEND_PLURAL, SOURCE_LABEL } from './types.js';
import { API_VERSION } from '../kube/client.js';
import { APP_KIND } from '../apps/types.js';

export interface MirrorOptions {
  bus: Bus;
  pool: Pool;
  custom: CustomObjectsApi;
  logger: Logger;
  mode: MirrorMode;
  /** Only apps of this namespace ('' = all). */
  namespace: string;
  /** The uid of an App (informer cache): the mirror is owned by it, which sync.ts checks. */
  appUid?: (namespace: string, name: string) => string | undefined;
}

/**
 * Which REST sends get a Send object: broadcasts = segment, tag and scheduled sends. Never a Live
 * Activity push: the Send's spec has no field of one, so its mirror would show another send.
 */
export function shouldMirror(mode: MirrorMode, event: SendCreatedEvent): boolean {
  if (event.source !== 'api' || mode === 'none' || event.kind === 'live_activity') return false;
  return mode === 'all' || event.broadcast || event.scheduled;
}

export const mirrorName = (sendId: number) => `send-${sendId}`;
export const mirrorConsumerName = (bus: Bus) => `${bus.names.eventStream}_controller_mirror`;

export async function ensureMirrorConsumer(bus: Bus): Promise<void> {
  const config = {
    durable_name: mirrorConsumerName(bus),
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: bus.names.subject(SUBJECTS.sendEvent('created')),
    ack_wait: nanos(30_000),
    max_ack_pending: 1000,
  };
  try {
    await bus.jsm.consumers.info(bus.names.eventStream, config.durable_name);
  } catch (error) {
    if (!/consumer not found/i.test(String((error as Error).message))) throw error;
    await bus.jsm.consumers.add(bus.names.eventStream, config);
  }
}

/** Starts the mirror loop; resolves the returned stop once the message in hand is done. */
export async function startMirror(opts: MirrorOptions): Promise<() => Promise<void>> {
  const log = opts.logger.child({ component: 'mirror' });
  if (opts.mode === 'none') return async () => undefined;
  await ensureMirrorConsumer(opts.bus);
  let stopping = false;
  let current: ConsumerMessages | undefined;
  let consumer: Consumer | undefined;

  const loop = (async () => {
    while (!stopping) {
      try {
        consumer ??= await opts.bus.js.consumers.get(opts.bus.names.eventStream, mirrorConsumerName(opts.bus));
        current = await consumer.fetch({ max_messages: 100, expires: 2000 });
        for await (const msg of current) {
          await handle(opts, log, msg);
          if (stopping) break;
        }
      } catch (error) {
        if (stopping) break;
        log.warn({ err: error }, 'mirror fetch failed; retrying');
        consumer = undefined;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  })();

  return async () => {
    stopping = true;
    current?.stop();
    await loop;
  };
}

async function handle(opts: MirrorOptions, log: Logger, msg: JsMsg): Promise<void> {
  let event: SendCreatedEvent;
  try {
    event = msg.json<SendCreatedEvent>();
  } catch {
    msg.term();
    return;
  }
  if (!shouldMirror(opts.mode, event)) {
    msg.ack();
    return;
  }
  try {
    await mirrorSend(opts, event.sendId);
    msg.ack();
  } catch (error) {
    log.warn({ err: describeKubeError(error), sendId: event.sendId }, 'send not mirrored yet; retrying');
    msg.nak(2000);
  }
}

/** Creates the Send object of one REST send (nothing when it exists or its app is not a cluster App). */
export async function mirrorSend(opts: Pick<MirrorOptions, 'pool' | 'custom' | 'namespace' | 'logger' | 'appUid'>, sendId: number): Promise<void> {
  const res = await opts.pool.query<{ request: SendRequest; created_at: Date; app_name: string }>(
    `SELECT s.request, s.created_at, a.name AS app_name FROM sends s JOIN apps a ON a.id = s.app_id WHERE s.id = $1`,
    [sendId],
  );
  const row = res.rows[0];
  if (!row) return;
  const slash = row.app_name.indexOf('/');
  if (slash < 0) return; // an app from a file, not from the cluster: it has no namespace to live in
  const namespace = row.app_name.slice(0, slash);
  const appName = row.app_name.slice(slash + 1);
  if (opts.namespace && namespace !== opts.namespace) return;
  // Owned by its App (no blockOwnerDeletion: that would need more RBAC): deleting the App takes
  // its mirrors along, and a Send without this owner is never read as a mirror.
  const uid = opts.appUid?.(namespace, appName);
  if (opts.appUid && !uid) return; // the App is gone from the cluster: nothing to show it under
  const body = {
    apiVersion: API_VERSION,
    kind: SEND_KIND,
    metadata: {
      name: mirrorName(sendId),
      namespace,
      labels: { [SOURCE_LABEL]: 'api', [APP_LABEL]: appName },
      annotations: { [SEND_ID_ANNOTATION]: String(sendId), [CREATED_AT_ANNOTATION]: new Date(row.created_at).toISOString() },
      ...(uid ? { ownerReferences: [{ apiVersion: API_VERSION, kind: APP_KIND, name: appName, uid }] } : {}),
    },
    spec: specFromRequest(appName, row.request),
  };
  try {
    await opts.custom.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: SEND_PLURAL, body });
  } catch (error) {
    const status = statusOf(error);
    if (status === 409) return; // already mirrored
    if (status === 404) return; // the namespace is gone
    if (status === 422 || status === 400) {
      // A send the API accepted but the Send schema refuses (a field beyond the CRD's limits):
      // showing it is not worth blocking the stream.
      opts.logger.warn({ sendId, err: describeKubeError(error) }, 'send cannot be shown as a Send object');
      return;
    }
    throw error;
  }
}
