// A poison chunk's devices at a real receiver (issue 28, docs/events.md "Kinds"): the start that
// records a chunk started too often without a record sends nothing and counts its devices failed
// (sender/poison.ts); each of them is a message.push.failed event with reason RedeliveryExhausted,
// as the docs promise, recorded in the chunk's transaction like any failure.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { startApnsSim, type ApnsSim } from '../../apns-sim/index.js';
import type { Sender } from '../../sender/index.js';
import { planSend } from '../../core/delivery/planner.js';
import { addDevices, createTestApp, send, startTestSender, waitFinal } from './fixtures.js';
import { addDestination, eventsOf, kindsOf, startReceiver, whsec, type Receiver } from './event-receiver.js';
import { waitFor } from '../support/wait.js';

describe('events: a poison chunk at a real receiver', function () {
  this.timeout(120_000);
  const env = useTestEnv();
  let sim: ApnsSim | undefined;
  let sender: Sender | undefined;
  let receiver: Receiver | undefined;

  after(async () => {
    await sender?.stop();
    await sim?.close();
    await receiver?.close();
  });

  it('each device of a chunk started too often is message.push.failed with reason RedeliveryExhausted, and nothing reaches Apple', async () => {
    const t = await createTestApp(env.pool, 'eventspoison');
    sim = await startApnsSim({ keys: [{ keyId: t.key.keyId, teamId: t.teamId, publicKey: t.key.publicKeyPem }] });
    const secret = whsec();
    receiver = await startReceiver(secret);
    await addDestination(env.pool, t.app.id, 'all', receiver.url, secret);
    await addDevices(env.pool, t.app.id, 3, { prefix: 'b0', externalIdPrefix: 'poisoned-' });
    // Planned before any sender runs, its one chunk already started once and never recorded (a
    // sender died on it): the next start is the last one allowed (maxChunkStarts 2).
    const created = await send(env, t.app, { included_segments: ['All'], contents: { en: 'x' } });
    await planSend({ pool: env.pool }, created.body.id);
    const chunks = await env.pool.query('UPDATE send_chunks SET claims = 1 WHERE send_id = $1', [created.body.id]);
    expect(chunks.rowCount).to.equal(1);
    sender = await startTestSender(env, sim, { maxChunkStarts: 2 }, { events: { httpHosts: ['127.0.0.1'], lanes: 1, idleMs: 50, backoff: { baseMs: 100, maxMs: 400 } } });

    const { final } = await waitFinal(env.pool, created.body.id);
    expect(final).to.include({ status: 'draft', sent: 0, failed: 3 }); // no device accepted: a draft (core/delivery/finish.ts)
    await waitFor('the finished event', () => kindsOf(receiver!.accepted).includes('notification.finished'));
    expect(receiver.badSignatures).to.equal(0);
    const events = eventsOf(receiver.accepted);
    expect(events.map((e) => e.event.kind)).to.deep.equal(['notification.created', 'message.push.failed', 'message.push.failed', 'message.push.failed', 'notification.finished']);
    const installs = (await env.pool.query(`SELECT id::text, external_id FROM subscriptions WHERE app_id = $1 ORDER BY seq`, [t.app.id])).rows;
    const failed = events.filter((e) => e.event.kind === 'message.push.failed');
    expect(failed.map((e) => [e.subscription?.id, e.user?.external_id, e.event.data])).to.deep.equal(
      installs.map((i) => [i.id, i.external_id, { reason: 'RedeliveryExhausted' }]),
    );
    for (const e of failed) expect(e.message).to.deep.equal({ id: String(created.body.id) });
    expect(events.at(-1)!.notification).to.deep.include({ sent: 0, failed: 3 });
    expect(sim.deliveries()).to.have.length(0); // that start sent nothing
  });
});
