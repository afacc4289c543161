// Event streams under faults (issue 28 "Done when"), with real processes: a receiver answering
// 500 then 200, and a sender killed (SIGKILL) mid-send, while it holds a batch at the receiver
// (never answered) and chunks at Apple (answered SLOW_MS later). A new sender takes over. The sum
// at the end: the receiver took every event of every send (sent, failed and unsubscribed per
// device, created and finished per send), each fact as one event id, the finished events' counts
// as the api shows them, no event twice (the only batch in flight at the kill was never
// answered), every signature valid, and no process died but the killed one.
import { expect } from 'chai';
import { eventsOf } from '../delivery/event-receiver.js';
import { apiClient, type Proc } from '../e2e/harness.js';
import { waitFor } from '../support/wait.js';
import { EventCluster, SLOW_MS, type Phase } from './event-cluster.js';
import { expectEveryEvent, type ExpectedSend } from './event-sums.js';

/** A dead process's hold on a destination runs out after a minute (core/events/destination-lease.ts LEASE_MS). */
const AFTER_LEASE_MS = 120_000;

describe('faults: event streams through a receiver answering 500 and a sender killed mid-send', function () {
  this.timeout(300_000);
  let cluster: EventCluster;
  let phases: Map<string, Phase>;
  const killed = new Set<Proc>();

  before(async function () {
    this.timeout(180_000);
    ({ cluster, phases } = await EventCluster.start([{ name: 'evfaults', phases: [{ name: 'errors', devices: 600 }, { name: 'kill', devices: 600, slow: true }] }]));
  });
  after(async function () {
    this.timeout(60_000);
    await cluster?.close();
  });

  it('loses no event: every one arrives, each fact once, with the counts the api shows', async () => {
    const app = cluster.apps[0];
    const expected: ExpectedSend[] = [];

    // 1. The receiver answers 500 three times, then 200.
    app.script.push(500, 500, 500);
    const errors = phases.get('errors')!;
    const first = await cluster.send(app, errors);
    await cluster.finishedEvent(app, first);
    expect(app.receiver.requests.length - app.receiver.accepted.length, 'requests refused').to.equal(3);
    expected.push({ id: first, ...errors, stats: await cluster.final(app, first) });

    // 2. The sender killed while a batch of the send is at the receiver, unanswered, and its
    // chunks are at Apple.
    app.script.push('hang');
    const kill = phases.get('kill')!;
    const second = await cluster.send(app, kill);
    await waitFor('a batch of the send held at the receiver', () => cluster.requested(app, second), 30_000);
    await waitFor("the send's devices at Apple", () => kill.tokens.some((tk) => cluster.sim.attempts(tk) > 0), 30_000);
    const [sender] = cluster.senders;
    killed.add(sender);
    expect(await sender.kill('SIGKILL')).to.equal(null);
    // Mid-send indeed: Apple answers SLOW_MS after the devices were seen, so the send was not done.
    const mid = (await apiClient(cluster.api.port, app.apiKey).get(`/api/v1/notifications/${second}`)).body;
    expect(mid.sent + mid.failed, `send ${second} at the kill (Apple answers after ${SLOW_MS} ms)`).to.be.below(kill.tokens.length);
    const next = await cluster.startSender();
    await cluster.finishedEvent(app, second, AFTER_LEASE_MS);
    expected.push({ id: second, ...kill, stats: await cluster.final(app, second) });

    const { duplicates } = expectEveryEvent('the receiver', eventsOf(app.receiver.accepted), app.appId, expected);
    expect(duplicates, 'events taken twice (no answered batch was in flight at a fault)').to.equal(0);
    expect(app.receiver.badSignatures).to.equal(0);
    for (const tk of [...errors.tokens, ...kill.tokens]) expect(cluster.sim.attempts(tk), `device ${tk} at Apple`).to.be.at.least(1);
    cluster.expectAlive(killed);
    expect(await next.kill('SIGTERM'), next.output().slice(-2000)).to.equal(0);
  });
});
