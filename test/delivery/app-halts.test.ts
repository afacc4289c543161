// "May this app send now" (core/apps/sendable.ts) on every path: a deleted or disabled App's, or an
// overdue one's, running send is stopped by the sweep with a message that says why; its unplanned
// send is stopped by the planner; its scheduled send fires as a draft; the accept path refuses;
// and the backlog (the sender's gauge and the KEDA query) counts only chunks someone may claim.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { addDevices, createTestApp, send, stats } from './fixtures.js';
import { disableApp, getApp, setInvoiceOverdue } from '../../core/apps/app-store.js';
import { planNext } from '../../core/delivery/planner.js';
import { chunkBacklog, PENDING_CHUNKS_SQL } from '../../core/delivery/claim.js';
import { stopOverdueSends } from '../../core/delivery/finish.js';
import { fireDueSends } from '../../core/send/fire-due.js';
import { acceptSend } from '../../core/send/accept.js';
import { PgIdempotencyGuard } from '../../core/idempotency/pg-guard.js';
import { AuthError, PaymentRequiredError } from '../../core/errors.js';
import { silentLogger } from '../../core/log.js';

describe('delivery: an app that may not send now', () => {
  const env = useTestEnv();

  const message = async (id: number) => (await env.pool.query('SELECT message FROM sends WHERE id = $1', [id])).rows[0].message as string;
  const pendingByKeda = async () => Number((await env.pool.query(PENDING_CHUNKS_SQL)).rows[0].count);

  /** A planned, running segment send of 1,200 devices (three chunks) of a new app. */
  async function plannedSend(name: string) {
    const t = await createTestApp(env.pool, name);
    await addDevices(env.pool, t.app.id, 1200, { prefix: 'c0' });
    const created = await send({ pool: env.pool, bus: env.bus }, t.app, { included_segments: ['Subscribed Users'], contents: { en: name } });
    while (await planNext(env.pool));
    return { app: t.app, id: created.body.id as number };
  }

  it('a disabled (deleted) app: its chunks leave the backlog, the sweep ends the send saying why', async () => {
    const { app, id } = await plannedSend('halt-disabled');
    expect((await chunkBacklog(env.pool)).pending).to.equal(3);
    expect(await pendingByKeda()).to.equal(3);
    await disableApp(env.pool, app.id);
    expect((await chunkBacklog(env.pool)).pending, 'nobody may claim them').to.equal(0);
    expect(await pendingByKeda()).to.equal(0);
    expect(await stopOverdueSends(env.pool)).to.deep.equal([id]);
    const s = await stats(env.pool, id);
    expect(s).to.include({ status: 'draft', sent: 0 });
    expect(await message(id)).to.equal('Not sent: the app was deleted or disabled. 1,200 devices were not sent and will not be.');
  });

  it('an overdue app: the same sweep, with the pause message', async () => {
    const { app, id } = await plannedSend('halt-overdue');
    await setInvoiceOverdue(env.pool, app.id, true);
    expect((await chunkBacklog(env.pool)).pending).to.equal(0);
    await stopOverdueSends(env.pool);
    expect(await message(id)).to.equal('Delivery paused: the app has an invoice past its due date. 1,200 devices were not sent and will not be.');
  });

  it('the planner stops an unplanned send of a disabled app', async () => {
    const t = await createTestApp(env.pool, 'halt-plan');
    await addDevices(env.pool, t.app.id, 10, { prefix: 'c1' });
    const created = await send({ pool: env.pool, bus: env.bus }, t.app, { included_segments: ['Subscribed Users'], contents: { en: 'x' } });
    await disableApp(env.pool, t.app.id);
    let outcome;
    for (let p = await planNext(env.pool); p; p = await planNext(env.pool)) if (p.sendId === created.body.id) outcome = p.outcome;
    expect(outcome).to.deep.equal({ kind: 'stopped', reason: 'disabled' });
    expect(await message(created.body.id)).to.match(/^Not sent: the app was deleted or disabled\./);
  });

  it('a scheduled send of a disabled app fires as a draft that says why', async () => {
    const t = await createTestApp(env.pool, 'halt-fire');
    await addDevices(env.pool, t.app.id, 10, { prefix: 'c2' });
    const created = await send({ pool: env.pool, bus: env.bus }, t.app, { included_segments: ['Subscribed Users'], contents: { en: 'x' }, send_after: new Date(Date.now() + 60_000).toISOString() });
    await disableApp(env.pool, t.app.id);
    await fireDueSends({ pool: env.pool, now: new Date(Date.now() + 120_000) });
    expect((await stats(env.pool, created.body.id)).status).to.equal('draft');
    expect(await message(created.body.id)).to.equal('Not sent: the app was deleted or disabled.');
  });

  it('the accept path refuses: 402 for an overdue app, 401 (revoked) for a disabled one', async () => {
    const deps = { pool: env.pool, bus: env.bus, logger: silentLogger(), idempotency: new PgIdempotencyGuard(env.pool) };
    const body = (appId: string) => ({ app_id: appId, included_segments: ['Subscribed Users'], contents: { en: 'x' } });
    const overdue = await createTestApp(env.pool, 'halt-accept-overdue');
    await setInvoiceOverdue(env.pool, overdue.app.id, true);
    const disabled = await createTestApp(env.pool, 'halt-accept-disabled');
    await disableApp(env.pool, disabled.app.id);
    for (const [t, cls] of [[overdue, PaymentRequiredError], [disabled, AuthError]] as const) {
      const app = (await getApp(env.pool, t.app.id))!;
      const error = await acceptSend(deps, { app, body: body(app.id), source: 'api', now: new Date() }).then(() => undefined, (e: unknown) => e);
      expect(error).to.be.instanceOf(cls);
    }
  });
});
