// One FCM access token per App across the fleet (issue 39 point 2): every sender's FcmClients
// takes the store-backed source (core/fcm/fleet-access-tokens.ts), so processes, restarts and a
// 401 share one token read from PostgreSQL; Google's endpoint (fcm-sim) is asked once per token.
import { expect } from 'chai';
import { Counter } from 'prom-client';
import { useTestEnv } from '../env/index.js';
import { FcmClients } from '../../core/fcm/clients.js';
import { setFcmCredentials } from '../../core/fcm/credentials-store.js';
import { fcmTokenIdentity, fleetFcmTokens } from '../../core/fcm/fleet-access-tokens.js';
import { startFcmSim, type FcmSim } from '../../fcm-sim/index.js';
import { silentLogger } from '../../core/log.js';
import { createTestApp } from '../delivery/fixtures.js';
import { atSim, makeServiceAccount, messageBody, simCa } from './helpers.js';

describe('FCM access tokens shared by the fleet (PostgreSQL)', function () {
  this.timeout(60_000);
  const env = useTestEnv({ bus: false, redis: false });
  const sa = makeServiceAccount('fleet-test');
  let sim: FcmSim;
  let ca: string;
  const open: FcmClients[] = [];
  const minted = new Counter({ name: 'test_fcm_minted', help: 'test', labelNames: ['gateway', 'why'] as const, registers: [] });

  before(async () => {
    sim = await startFcmSim({ accounts: [{ clientEmail: sa.account.clientEmail, projectId: sa.account.projectId, publicKey: sa.publicKey }] });
    ca = await simCa(sim);
  });
  after(async () => {
    await Promise.all(open.map((c) => c.close()));
    await sim?.close();
  });

  /** A sender process's clients: its own pool of FCM clients, the fleet's store. */
  const processClients = () => {
    const c = new FcmClients(env.pool, { url: sim.url, ca, tokens: fleetFcmTokens(env.pool, silentLogger(), minted) }, silentLogger());
    open.push(c);
    return c;
  };

  it('six processes sending at once present one token, minted once; a restarted process reuses it', async () => {
    const t = await createTestApp(env.pool, 'fcm-fleet');
    await setFcmCredentials(env.pool, t.app.id, atSim(sa.account, sim));
    const processes = Array.from({ length: 6 }, processClients);
    await Promise.all(processes.map(async (p, i) => {
      const client = (await p.get(t.app.id))!;
      const results = await client.send([{ token: `dev-${i}`, body: messageBody(`dev-${i}`) }]);
      expect(results[0].status).to.equal(200);
    }));
    expect(sim.stats().tokensMinted).to.deep.equal({ [sa.account.clientEmail]: 1 });
    const restarted = (await processClients().get(t.app.id))!;
    expect((await restarted.send([{ token: 'after-restart', body: messageBody('after-restart') }]))[0].status).to.equal(200);
    expect(sim.stats().tokensMinted).to.deep.equal({ [sa.account.clientEmail]: 1 });
    // One row, named by the account and its key's digest (a rotated key is a new row).
    const rows = await env.pool.query(`SELECT identity FROM fleet_tokens WHERE kind = 'fcm'`);
    expect(rows.rows.map((r) => r.identity)).to.deep.equal([fcmTokenIdentity(atSim(sa.account, sim))]);
  });

  it('a token FCM refuses (401) is replaced once for the fleet: the next process reads the new one', async () => {
    const t = await createTestApp(env.pool, 'fcm-fleet-401');
    await setFcmCredentials(env.pool, t.app.id, atSim(sa.account, sim));
    const [a, b] = [processClients(), processClients()];
    expect((await (await a.get(t.app.id))!.send([{ token: 'one', body: messageBody('one') }]))[0].status).to.equal(200);
    const before = sim.stats().tokensMinted[sa.account.clientEmail];
    sim.revokeAccessTokens();
    expect((await (await a.get(t.app.id))!.send([{ token: 'two', body: messageBody('two') }]))[0].status).to.equal(200);
    expect((await (await b.get(t.app.id))!.send([{ token: 'three', body: messageBody('three') }]))[0].status).to.equal(200);
    expect(sim.stats().tokensMinted[sa.account.clientEmail]).to.equal(before + 1);
  });
});
