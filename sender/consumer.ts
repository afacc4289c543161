// The shared durable pull consumer of the work stream (created idempotently at start by every
// sender) and the loop that pulls only as many jobs as there are free slots, so a job is never
// held by a sender that cannot work it, and a stopping sender has nothing buffered to hand back.
import { AckPolicy, DeliverPolicy, type Consumer, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import type { Bus } from '../core/bus/jetstream.js';
import type { Logger } from '../core/log.js';

export interface ConsumerSettings {
  ackWaitMs: number;
  maxDeliver: number;
  /** Jobs delivered and not yet acknowledged, across all senders. */
  maxAckPending?: number;
}

export async function ensureSenderConsumer(bus: Bus, settings: ConsumerSettings): Promise<void> {
  const { jsm, names } = bus;
  const config = {
    durable_name: names.senderConsumer,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: nanos(settings.ackWaitMs),
    max_deliver: settings.maxDeliver,
    max_ack_pending: settings.maxAckPending ?? 10_000,
    filter_subject: names.subject('work.>'),
  };
  try {
    await jsm.consumers.info(names.workStream, names.senderConsumer);
    const { durable_name: _d, deliver_policy: _p, filter_subject: _f, ...updatable } = config;
    await jsm.consumers.update(names.workStream, names.senderConsumer, updatable);
  } catch (error) {
    if (!/consumer not found/i.test(String((error as Error).message))) throw error;
    try {
      await jsm.consumers.add(names.workStream, config);
    } catch (raced) {
      // Another sender created it between our info and add: fine when it now exists.
      await jsm.consumers.info(names.workStream, names.senderConsumer).catch(() => {
        throw raced;
      });
    }
  }
}

export interface ConsumerLoop {
  /** Stops pulling; resolves when every job taken has been acked or nak'ed. */
  stop(): Promise<void>;
  active(): number;
}

export function runConsumerLoop(
  bus: Bus,
  opts: { concurrency: number; logger: Logger; handle: (msg: JsMsg) => Promise<unknown>; expiresMs?: number },
): ConsumerLoop {
  const { logger, concurrency } = opts;
  let stopping = false;
  let active = 0;
  let current: ConsumerMessages | undefined;
  let consumer: Consumer | undefined;
  let slotFreed: (() => void) | undefined;
  const idle: Array<() => void> = [];

  const release = () => {
    active--;
    slotFreed?.();
    if (active === 0) for (const done of idle.splice(0)) done();
  };

  const loop = (async () => {
    let failures = 0;
    while (!stopping) {
      if (active >= concurrency) {
        await new Promise<void>((r) => (slotFreed = r));
        slotFreed = undefined;
        continue;
      }
      try {
        consumer ??= await bus.js.consumers.get(bus.names.workStream, bus.names.senderConsumer);
        current = await consumer.fetch({ max_messages: concurrency - active, expires: opts.expiresMs ?? 2000 });
        for await (const msg of current) {
          active++;
          opts.handle(msg).catch((error) => logger.error({ err: error }, 'job handler threw')).finally(release);
          if (stopping) break;
        }
        failures = 0;
      } catch (error) {
        if (stopping) break;
        failures++;
        consumer = undefined;
        if (failures === 1 || failures % 20 === 0) logger.warn({ err: error, failures }, 'pulling jobs failed; retrying');
        await new Promise((r) => setTimeout(r, Math.min(2000, 100 * failures)));
      } finally {
        current = undefined;
      }
    }
  })();

  return {
    active: () => active,
    async stop() {
      stopping = true;
      slotFreed?.();
      current?.stop();
      await loop;
      if (active > 0) await new Promise<void>((r) => idle.push(r));
    },
  };
}
