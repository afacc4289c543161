// Recovery times (docs/operations.md): each failure against `herald dev` (one process)
// and against the split roles (2 apis + 2 senders), on private PostgreSQL, Redis and NATS started
// here on free ports. For each failure it prints: what the api answered during it, how long after
// the dependency came back (or the process died) the first send was accepted again, and how long
// until a send made then was delivered and final. Default timings of Herald (AckWait 30 s etc.).
//
//   npx tsx bench/faults/run.ts [--mode dev|split|both] [--pg-down-seconds 20]
//
// Never part of `make test`; prints figures (a loaded machine makes them longer).
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { createPool } from '../../core/store/db.js';
import { createKey } from '../../core/apps/keys.js';
import { startApnsSim, type ApnsSim } from '../../apns-sim/index.js';
import { addDevices, createTestApp } from '../../test/delivery/fixtures.js';
import { PrivateNats, sleep, startRole, type Proc } from '../../test/e2e/harness.js';
import { PrivatePostgres, PrivateRedis } from '../../test/faults/servers.js';
import { isFinalStatus } from '../../core/send-model/states.js';

const { values } = parseArgs({ options: { mode: { type: 'string', default: 'both' }, 'pg-down-seconds': { type: 'string', default: '20' } } });
const PG_DOWN_MS = Number(values['pg-down-seconds']) * 1000;

interface Ctx {
  apis: Proc[];
  senders: Proc[];
  env: Record<string, string>;
  appId: string;
  key: string;
  ids: string[];
}

async function post(ctx: Ctx): Promise<{ status: number; id?: number }> {
  for (const api of ctx.apis.filter((p) => p.child.exitCode === null && p.child.signalCode === null)) {
    try {
      const res = await fetch(`http://127.0.0.1:${api.port}/api/v1/notifications`, {
        method: 'POST',
        headers: { authorization: `Key ${ctx.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ app_id: ctx.appId, include_subscription_ids: ctx.ids, contents: { en: 'probe' } }),
        signal: AbortSignal.timeout(30_000),
      });
      const body = (await res.json()) as any;
      return { status: res.status, id: res.status < 300 ? body.id : undefined };
    } catch {
      /* try the next api */
    }
  }
  return { status: 0 };
}

async function final(ctx: Ctx, id: number): Promise<void> {
  for (;;) {
    const api = ctx.apis.find((p) => p.child.exitCode === null && p.child.signalCode === null)!;
    const res = await fetch(`http://127.0.0.1:${api.port}/api/v1/notifications/${id}`, { headers: { authorization: `Key ${ctx.key}` } }).catch(() => undefined);
    const body = res && res.status === 200 ? ((await res.json()) as any) : undefined;
    if (body && isFinalStatus(body.status)) {
      if (body.failed !== 0 || body.sent !== ctx.ids.length) throw new Error(`send ${id} ended ${JSON.stringify(body)}`);
      return;
    }
    await sleep(100);
  }
}

/** Probes during the fault; from `back()` on, measures the first accepted send and its delivery. */
async function measure(ctx: Ctx, label: string, fault: () => Promise<void>, restore: () => Promise<void>): Promise<string> {
  const during = new Map<number, number>();
  let probing = true;
  const inFlight: number[] = [];
  const probe = (async () => {
    while (probing) {
      const r = await post(ctx);
      during.set(r.status, (during.get(r.status) ?? 0) + 1);
      if (r.id) inFlight.push(r.id);
      await sleep(200);
    }
  })();
  await fault();
  await restore();
  const t0 = Date.now();
  probing = false;
  await probe;
  let accepted: number | undefined;
  let id: number | undefined;
  while (id === undefined) {
    const r = await post(ctx);
    if (r.id) {
      id = r.id;
      accepted = Date.now() - t0;
    } else await sleep(100);
  }
  await final(ctx, id);
  const delivered = Date.now() - t0;
  for (const earlier of inFlight) await final(ctx, earlier);
  const all = Date.now() - t0;
  const answers = [...during].map(([s, n]) => `${s === 0 ? 'no answer' : s}×${n}`).join(', ');
  return `| ${label} | ${answers} | ${(accepted! / 1000).toFixed(1)} s | ${(delivered / 1000).toFixed(1)} s | ${(all / 1000).toFixed(1)} s |`;
}

async function run(mode: 'dev' | 'split'): Promise<string[]> {
  const [pg, redis, nats] = await Promise.all([PrivatePostgres.start(), PrivateRedis.start(), PrivateNats.start()]);
  let sim: ApnsSim | undefined;
  const procs: Proc[] = [];
  try {
    const pool = createPool(pg.url('postgres'), { max: 1 });
    await pool.query('CREATE DATABASE herald');
    await pool.end();
    const env0 = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', HERALD_DATABASE_URL: pg.url(), HERALD_REDIS_URL: redis.url, HERALD_NATS_URL: nats.url, HERALD_LOG_LEVEL: 'warn' };
    const migrate = spawn(process.execPath, ['bin/herald.js', 'migrate'], { env: env0, stdio: 'inherit' });
    await new Promise((r) => migrate.on('exit', r));
    const db = createPool(pg.url(), { max: 2 });
    const t = await createTestApp(db, 'bench');
    await addDevices(db, t.app.id, 100);
    const ids = (await db.query('SELECT id FROM subscriptions WHERE app_id = $1', [t.app.id])).rows.map((r) => r.id as string);
    const { key } = await createKey(db, t.app.id, { name: 'bench' });
    await db.end();
    sim = await startApnsSim({ keys: [{ keyId: t.key.keyId, teamId: t.teamId, publicKey: t.key.publicKeyPem }], maxDeliveries: 0, trackTokens: false });
    const env = { ...env0, HERALD_APNS_URL: sim.url, HERALD_APNS_CA_FILE: sim.caFile };
    const ctx: Ctx = { apis: [], senders: [], env, appId: t.app.id, key, ids };
    if (mode === 'dev') {
      const dev = await startRole('dev', env);
      procs.push(dev);
      ctx.apis.push(dev);
    } else {
      const started = await Promise.all([startRole('api', env), startRole('api', env), startRole('sender', env), startRole('sender', env)]);
      procs.push(...started);
      ctx.apis.push(started[0], started[1]);
      ctx.senders.push(started[2], started[3]);
    }
    const rows: string[] = [];
    rows.push(await measure(ctx, 'every PostgreSQL connection ended', async () => {
      const admin = createPool(pg.url('postgres'), { max: 1 });
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'herald'");
      await admin.end();
    }, async () => undefined));
    rows.push(await measure(ctx, `PostgreSQL stopped ${PG_DOWN_MS / 1000} s`, async () => {
      await pg.down();
      await sleep(PG_DOWN_MS);
    }, () => pg.up()));
    rows.push(await measure(ctx, 'Redis restarted (down 5 s)', async () => {
      await redis.down();
      await sleep(5000);
    }, () => redis.up()));
    rows.push(await measure(ctx, 'NATS restarted (down 5 s)', async () => {
      await nats.down();
      await sleep(5000);
    }, () => nats.up()));
    if (mode === 'split') {
      rows.push(await measure(ctx, 'a sender kill -9 (mid-send)', async () => {
        await ctx.senders[0].kill('SIGKILL');
      }, async () => undefined));
      rows.push(await measure(ctx, 'an api kill -9 (the other answers)', async () => {
        await ctx.apis[0].kill('SIGKILL');
      }, async () => undefined));
    }
    const alive = procs.filter((p) => p.child.exitCode === null && p.child.signalCode === null).length;
    rows.push(`(${mode}: ${alive} of ${procs.length} processes still running; killed on purpose: ${mode === 'split' ? 2 : 0})`);
    return rows;
  } finally {
    await Promise.all(procs.map((p) => p.kill('SIGKILL')));
    await sim?.close();
    await Promise.all([pg.close(), redis.close(), nats.close()]);
  }
}

const modes = values.mode === 'both' ? (['dev', 'split'] as const) : [values.mode as 'dev' | 'split'];
for (const mode of modes) {
  const rows = await run(mode);
  console.log(`\n### ${mode === 'dev' ? '`herald dev` (one process)' : 'split roles: 2 api + 2 sender processes'}\n`);
  console.log('| failure | api answers during it (probe every 200 ms) | first send accepted after | that send delivered after | all sends made during it delivered after |');
  console.log('| --- | --- | --- | --- | --- |');
  for (const r of rows) console.log(r);
}
process.exit(0);
