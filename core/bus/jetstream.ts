// The production bus: NATS JetStream through the v3 clients. Streams are created idempotently at
// start; every publish carries a message id, so JetStream drops a replayed one (outbox relay,
// planner replans) inside the duplicate window.
import { connect, nanos, type NatsConnection } from '@nats-io/transport-node';
import {
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  DiscardPolicy,
  type JetStreamClient,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { busNames, type BusNames } from './subjects.js';
import type { Logger } from '../log.js';
import { outageLog } from '../faults/outage-log.js';
import { DependencyUnavailableError } from '../faults/unavailable.js';

export interface Bus {
  readonly names: BusNames;
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  /** Publishes JSON to a relative subject; resolves once JetStream has stored it (or held it already: a duplicate). */
  publish(relativeSubject: string, payload: unknown, msgId: string): Promise<void>;
  ping(): Promise<void>;
  /** False while the connection to NATS is lost (the client reconnects by itself). */
  connected(): boolean;
  close(): Promise<void>;
}

/** A publish gives up after this long, so a caller never waits on a NATS outage (the outbox keeps the message). */
const PUBLISH_TIMEOUT_MS = 2_000;

// Longer than the outbox relay's retry horizon, so a republish after a crash is still deduplicated.
const DUPLICATE_WINDOW_MS = 10 * 60 * 1000;
const EVENT_MAX_AGE_MS = 24 * 60 * 60 * 1000;
// The stream also carries the apps' events (core/events/stream.ts: one message per device event,
// ~0.5 kB): a count cap bounds its disk (~5 GB) where a byte cap would be reserved up front
// against the server's JetStream storage by every install and test file sharing it.
const EVENT_MAX_MSGS = 10_000_000;

export async function ensureStreams(jsm: JetStreamManager, names: BusNames): Promise<void> {
  const events = {
    name: names.eventStream,
    subjects: [names.subject('events.>')],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    max_age: nanos(EVENT_MAX_AGE_MS),
    max_msgs: EVENT_MAX_MSGS,
    discard: DiscardPolicy.Old,
    duplicate_window: nanos(DUPLICATE_WINDOW_MS),
  };
  for (const config of [events]) {
    try {
      await jsm.streams.info(config.name);
      await jsm.streams.update(config.name, config);
    } catch (error) {
      if (!/stream not found/i.test(String((error as Error).message))) throw error;
      await jsm.streams.add(config);
    }
  }
}

export async function connectBus(url: string, prefix: string, opts: { name?: string; logger?: Logger } = {}): Promise<Bus> {
  const nc = await connect({
    servers: url,
    name: opts.name ?? 'herald',
    maxReconnectAttempts: -1, // a NATS restart is an outage to ride out, not a reason to exit
    reconnectTimeWait: 250,
  });
  // Follow the connection, so publishers fail at once while it is down (the outbox keeps the
  // message) and the outage is logged once.
  let up = true;
  const outage = opts.logger ? outageLog(opts.logger, 'NATS') : undefined;
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect') {
        up = false;
        outage?.down(new Error(`NATS connection lost (${url})`));
      } else if (status.type === 'reconnect') {
        up = true;
        outage?.up();
      }
    }
  })().catch(() => undefined);
  const names = busNames(prefix);
  const jsm = await jetstreamManager(nc);
  await ensureStreams(jsm, names);
  const js = jetstream(nc);
  return {
    names,
    nc,
    js,
    jsm,
    async publish(relativeSubject, payload, msgId) {
      if (!up) throw new DependencyUnavailableError('NATS', 'not connected');
      await js.publish(names.subject(relativeSubject), JSON.stringify(payload), { msgID: msgId, timeout: PUBLISH_TIMEOUT_MS });
    },
    async ping() {
      if (!up) throw new DependencyUnavailableError('NATS', 'not connected');
      await nc.flush();
    },
    connected: () => up,
    async close() {
      await nc.drain().catch(() => nc.close());
    },
  };
}

/** Deletes the streams of a prefix (tests, uninstall). */
export async function deleteStreams(jsm: JetStreamManager, names: BusNames): Promise<void> {
  for (const name of [names.eventStream]) {
    await jsm.streams.delete(name).catch(() => undefined);
  }
}
