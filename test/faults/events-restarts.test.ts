// Event streams across a PostgreSQL restart and a NATS restart (issue 28 "Done when"), with real
// processes on private servers. Each app has a webhook destination (a real receiver) and the NATS
// JetStream stream.
// - PostgreSQL stopped (fast: every session ended) while the sender has a send's chunks at Apple
//   and a batch at the receiver, which takes it but whose answer never arrives; started again
//   5 s later. The sender cannot record the batch, so it comes again (at least once): the only
//   repeats allowed are that batch's events.
// - NATS stopped while a send is at Apple: its webhook events all arrive while NATS is still down
//   (the webhooks do not need it); a send accepted during the outage goes through after it; the
//   stream gets every event once NATS is back.
// The sum for each app and each destination: every event of every send arrives, each fact as one
// event id, the finished counts as the api shows; none on the stream twice (JetStream drops a
// re-published event id); no process died, and each exits 0 on SIGTERM.
import { expect } from 'chai';
import { AckPolicy, DeliverPolicy } from '@nats-io/jetstream';
import { connectBus } from '../../core/bus/jetstream.js';
import type { HeraldEvent } from '../../core/events/expand.js';
import { appEventsFilter } from '../../core/events/stream.js';
import { eventsOf } from '../delivery/event-receiver.js';
import { sleep } from '../e2e/harness.js';
import { waitFor } from '../support/wait.js';
import { EventCluster, type ClusterApp, type Phase } from './event-cluster.js';
import { expectEveryEvent, type ExpectedSend } from './event-sums.js';

/** How long PostgreSQL stays down: the outage is the fault itself. */
const PG_DOWN_MS = 5_000;
/** A process's hold on a destination whose outcome it could not record runs out after a minute (LEASE_MS). */
const AFTER_LEASE_MS = 120_000;

/** Every event of the app JetStream holds, once at least `atLeast` are stored (or the wait ends: the sum then says what is missing). */
async function streamEvents(url: string, appId: string, atLeast: number): Promise<HeraldEvent[]> {
  const bus = await connectBus(url, 'HERALD');
  try {
    const subject = bus.names.subject(appEventsFilter(appId));
    const stored = async () => Object.values((await bus.jsm.streams.info(bus.names.eventStream, { subjects_filter: subject })).state.subjects ?? {}).reduce((n, c) => n + c, 0);
    await waitFor(`${atLeast} events of app ${appId} on the stream`, async () => (await stored()) >= atLeast, 60_000).catch(() => undefined);
    // A durable consumer with one filter subject, as docs/events.md shows (NATS 2.9 and later).
    const durable = `faults_${appId.slice(0, 8)}`;
    await bus.jsm.consumers.add(bus.names.eventStream, { durable_name: durable, filter_subject: subject, ack_policy: AckPolicy.None, deliver_policy: DeliverPolicy.All });
    const consumer = await bus.js.consumers.get(bus.names.eventStream, durable);
    const events: HeraldEvent[] = [];
    for (;;) {
      let n = 0;
      for await (const m of await consumer.fetch({ max_messages: 1000, expires: 1000 })) {
        events.push(m.json<HeraldEvent>());
        n++;
      }
      if (!n) return events;
    }
  } finally {
    await bus.close();
  }
}

const facts = (sends: ExpectedSend[]) => sends.reduce((n, s) => n + 2 + s.sent.length + 2 * (s.gone?.length ?? 0), 0);

describe('faults: event streams across a PostgreSQL restart and a NATS restart', function () {
  this.timeout(300_000);
  let cluster: EventCluster;
  let phases: Map<string, Phase>;

  before(async function () {
    this.timeout(180_000);
    ({ cluster, phases } = await EventCluster.start([
      { name: 'evpostgres', stream: true, phases: [{ name: 'pg', devices: 600, slow: true }] },
      { name: 'evnats', stream: true, phases: [{ name: 'natsdown', devices: 600, slow: true }, { name: 'natsafter', devices: 200 }] },
    ]));
  });
  after(async function () {
    this.timeout(60_000);
    await cluster?.close();
  });

  it('loses no event: every one arrives at the receiver and on the stream, each fact once, with the counts the api shows', async () => {
    const [p, n] = cluster.apps;
    const expected = new Map<ClusterApp, ExpectedSend[]>([[p, []], [n, []]]);

    // 1. PostgreSQL restarted while a batch is out and its 2xx never comes back.
    p.script.push('swallow');
    const pg = phases.get('pg')!;
    const first = await cluster.send(p, pg);
    await waitFor('a batch of the send at the receiver', () => cluster.requested(p, first), 30_000);
    await waitFor("the send's devices at Apple", () => pg.tokens.some((tk) => cluster.sim.attempts(tk) > 0), 30_000);
    const swallowed = p.receiver.accepted.length;
    expect(swallowed, 'the batch the receiver took').to.equal(1);
    await cluster.pg.down();
    p.receiver.loseHeld(); // the answer is lost with the connection
    await sleep(PG_DOWN_MS);
    await cluster.pg.up();

    // 2. NATS stopped while a send is at Apple.
    const down = phases.get('natsdown')!;
    const second = await cluster.send(n, down);
    await waitFor("the send's devices at Apple", () => down.tokens.some((tk) => cluster.sim.attempts(tk) > 0), 30_000);
    await cluster.nats.down();
    await cluster.finishedEvent(n, second, 60_000); // while NATS is still down
    expected.get(n)!.push({ id: second, ...down, stats: await cluster.final(n, second) });
    const after = phases.get('natsafter')!;
    const third = await cluster.send(n, after); // accepted during the outage
    await cluster.nats.up();
    await cluster.finishedEvent(n, third, 60_000);
    expected.get(n)!.push({ id: third, ...after, stats: await cluster.final(n, third) });

    // The batch PostgreSQL's outage left unrecorded comes again once the dead hold runs out.
    await cluster.finishedEvent(p, first, AFTER_LEASE_MS);
    expected.get(p)!.push({ id: first, ...pg, stats: await cluster.final(p, first) });

    const repeatable = p.receiver.accepted[0].events.length;
    const atP = expectEveryEvent('the receiver of the PostgreSQL app', eventsOf(p.receiver.accepted), p.appId, expected.get(p)!);
    expect(atP.duplicates, 'events taken twice: at most the batch whose answer was lost').to.be.at.most(repeatable);
    const atN = expectEveryEvent('the receiver of the NATS app', eventsOf(n.receiver.accepted), n.appId, expected.get(n)!);
    expect(atN.duplicates, 'events taken twice (no answered batch was lost)').to.equal(0);
    for (const app of [p, n]) {
      expect(app.receiver.badSignatures).to.equal(0);
      const onStream = await streamEvents(cluster.nats.url, app.appId, facts(expected.get(app)!));
      expect(expectEveryEvent(`the stream of app ${app.appId}`, onStream, app.appId, expected.get(app)!).duplicates, 'events twice on the stream').to.equal(0);
    }
    cluster.expectAlive(new Set());
    for (const proc of [cluster.api, ...cluster.senders]) expect(await proc.kill('SIGTERM'), proc.output().slice(-2000)).to.equal(0);
  });
});
