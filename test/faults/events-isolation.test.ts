// Event streams, isolation (issue 28 "Done when"): one app's failing destinations — more of them
// hanging than a sender has lanes, and one whose port is closed — slow neither another app's
// events nor anyone's deliveries to Apple. Proved by progress, not by a clock: while every one of
// the failing app's requests is still open (none answered, none past its deadline, which is set
// far past every wait here), the other apps' sends close and their receivers get every event;
// the failing app's own send closes too. Then the failing app's receivers come back (answer, or
// its URL is fixed) and each gets every event it missed, from where it stopped.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { storeDestinations } from '../../core/events/destinations.js';
import { EVENT_LANES } from '../../core/events/dispatcher.js';
import { addDevices, createTestApp, send, startDeliveryStack, waitFinal, type DeliveryStack, type TestApp } from '../delivery/fixtures.js';
import { eventsOf, kindsOf, startReceiver, whsec, type Receiver } from '../delivery/event-receiver.js';
import { freePort } from '../e2e/harness.js';
import { waitFor } from '../support/wait.js';
import { expectEveryEvent } from './event-sums.js';

/** More hanging destinations than a sender has lanes: were each to hold a lane, nothing else would move. */
const HANGING = EVENT_LANES + 1;
/** A request's deadline: past every wait below, so the hanging requests are still open when asserted on. */
const DEADLINE_MS = 50_000;

describe("faults: one app's failing event destinations slow neither another app's events nor anyone's deliveries to Apple", function () {
  this.timeout(120_000);
  const env = useTestEnv();
  let stack: DeliveryStack;
  const receivers: Receiver[] = [];

  before(async () => {
    stack = await startDeliveryStack(env, 'evfailing', { rules: [{ prefix: 'dead', status: 410 }] }, {
      events: { httpHosts: ['127.0.0.1'], lanes: EVENT_LANES, idleMs: 50, timeoutMs: DEADLINE_MS, backoff: { baseMs: 100, maxMs: 400 } },
    });
  });
  after(async () => {
    for (const r of receivers) await r.close();
    await stack?.close();
  });

  const receiver = async (answer?: () => number | 'hang') => {
    const r = await startReceiver(secret, answer);
    receivers.push(r);
    return r;
  };
  const secret = whsec();
  const dest = (name: string, url: string) => ({ name, url, secretRef: { name: 'unused', key: 'unused' }, secret });
  const idsOf = async (appId: string, prefix: string) =>
    (await env.pool.query<{ id: string }>('SELECT id::text FROM subscriptions WHERE app_id = $1 AND token LIKE $2 ORDER BY id', [appId, `${prefix}%`])).rows.map((r) => r.id);
  const rows = async (appId: string) =>
    (await env.pool.query('SELECT name, attempts, last_error, failing_since FROM event_destinations WHERE app_id = $1 ORDER BY name', [appId])).rows;

  /** An app with `sent` devices Apple accepts and 2 it refuses for good (410). */
  async function appWithDevices(t: TestApp, prefix: string, sent: number) {
    await addDevices(env.pool, t.app.id, sent, { prefix });
    await addDevices(env.pool, t.app.id, 2, { prefix: `dead${prefix}` });
    return { t, sent: await idsOf(t.app.id, prefix), gone: await idsOf(t.app.id, `dead${prefix}`) };
  }

  it('while every request of the failing app hangs, the other apps deliver and get every event; then the failing app gets all of its own', async () => {
    const a = await appWithDevices(stack.app, 'a1', 300);
    const b = await appWithDevices(await createTestApp(env.pool, 'evhealthyb', { key: stack.app.key, teamId: stack.app.teamId }), 'b1', 700); // two chunks
    const c = await appWithDevices(await createTestApp(env.pool, 'evhealthyc', { key: stack.app.key, teamId: stack.app.teamId }), 'c1', 100);

    let answering = false;
    const hanging = await Promise.all(Array.from({ length: HANGING }, () => receiver(() => (answering ? 200 : 'hang'))));
    const downUrl = `http://127.0.0.1:${await freePort()}/events`; // nothing listens there
    const hangingDests = hanging.map((r, i) => dest(`hang${i}`, r.url));
    await storeDestinations(env.pool, a.t.app.id, [...hangingDests, dest('down', downUrl)]);
    const receiverB = await receiver();
    const receiverC = await receiver();
    await storeDestinations(env.pool, b.t.app.id, [dest('backend', receiverB.url)]);
    await storeDestinations(env.pool, c.t.app.id, [dest('backend', receiverC.url)]);

    // A's send first: every one of its failing destinations is taken, more than the lanes there are.
    const sa = await send(env, a.t.app, { included_segments: ['All'], contents: { en: 'a' } });
    await waitFor(`each of A's ${HANGING} hanging destinations holding a request (a sender has ${EVENT_LANES} lanes)`, () => hanging.every((r) => r.requests.length === 1), 20_000);
    await waitFor("A's down destination refused", async () => (await rows(a.t.app.id)).find((r) => r.name === 'down')?.attempts > 0, 20_000);

    // Then B's and C's: delivered to Apple and every event received while A's still hang.
    const sb = await send(env, b.t.app, { included_segments: ['All'], contents: { en: 'b' } });
    const sc = await send(env, c.t.app, { included_segments: ['All'], contents: { en: 'c' } });
    const [fa, fb, fc] = await Promise.all([sa, sb, sc].map((s) => waitFinal(env.pool, s.body.id, 30_000)));
    const finishedAt = (r: Receiver) => kindsOf(r.accepted).includes('notification.finished');
    await waitFor("B's and C's finished events", () => finishedAt(receiverB) && finishedAt(receiverC), 30_000);
    // Still hanging: one request each, unanswered, none past its deadline (no failed attempt yet).
    expect(hanging.map((r) => r.requests.length)).to.deep.equal(Array(HANGING).fill(1));
    expect((await rows(a.t.app.id)).filter((r) => r.name.startsWith('hang')).map((r) => r.attempts)).to.deep.equal(Array(HANGING).fill(0));
    expect(hanging.every((r) => r.accepted.length === 0)).to.equal(true);

    const expectedB = [{ id: sb.body.id, sent: b.sent, gone: b.gone, stats: fb.final }];
    const expectedC = [{ id: sc.body.id, sent: c.sent, gone: c.gone, stats: fc.final }];
    expect(expectEveryEvent('B', eventsOf(receiverB.accepted), b.t.app.id, expectedB).duplicates).to.equal(0);
    expect(expectEveryEvent('C', eventsOf(receiverC.accepted), c.t.app.id, expectedC).duplicates).to.equal(0);
    expect(receiverB.badSignatures + receiverC.badSignatures).to.equal(0);

    // A's receivers come back: the hanging ones answer (their open requests are dropped and
    // retried), the down one's URL is fixed as its team would re-apply the App (it keeps its place).
    answering = true;
    for (const r of hanging) r.loseHeld();
    const fixed = await receiver();
    await storeDestinations(env.pool, a.t.app.id, [...hangingDests, dest('down', fixed.url)]);
    const expectedA = [{ id: sa.body.id, sent: a.sent, gone: a.gone, stats: fa.final }];
    for (const [i, r] of [...hanging, fixed].entries()) {
      await waitFor(`A's destination ${i}: the finished event`, () => finishedAt(r), 30_000);
      expect(expectEveryEvent(`A's destination ${i}`, eventsOf(r.accepted), a.t.app.id, expectedA).duplicates).to.equal(0);
    }
    await waitFor("A's destinations recovered", async () => (await rows(a.t.app.id)).every((r) => r.attempts === 0 && r.failing_since === null && r.last_error === null), 10_000);
  });
});
