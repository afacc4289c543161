// One provider token across the fleet (issue 37), through the senders: two senders, each with the
// store-backed sources of a process of its own (core/apns/fleet-provider-tokens.ts, as cli/
// builds them), deliver a send; one is stopped and a new one started (a restart) for a second
// send. The simulator, standing in for Apple, saw one token for the team, and the processes
// minted one between them. Real PostgreSQL, NATS and Redis.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { useTestEnv } from '../env/index.js';
import { startApnsSim, type ApnsSim } from '../../apns-sim/index.js';
import type { Sender } from '../../sender/index.js';
import { FleetProviderTokens } from '../../core/apns/fleet-provider-tokens.js';
import { silentLogger } from '../../core/log.js';
import { addDevices, createTestApp, send, startTestSender, waitFinal } from './fixtures.js';

const DEVICES = 2000; // four chunks

describe('delivery: one provider token across senders and a restart', function () {
  this.timeout(120_000);
  const env = useTestEnv();
  let sim: ApnsSim | undefined;
  const senders: Sender[] = [];
  const processes: FleetProviderTokens[] = [];

  after(async () => {
    await Promise.all(senders.map((s) => s.stop()));
    await sim?.close();
  });

  async function sender(): Promise<Sender> {
    const fleet = new FleetProviderTokens(env.pool, silentLogger());
    processes.push(fleet);
    const s = await startTestSender(env, sim!, {}, { apns: { url: sim!.url, ca: await readFile(sim!.caFile, 'utf8'), client: { providerTokens: fleet.source } }, concurrency: 2 });
    senders.push(s);
    return s;
  }

  it('two senders, then one restarted: the simulator saw one token for the team', async () => {
    const t = await createTestApp(env.pool, 'fleet-token');
    await addDevices(env.pool, t.app.id, DEVICES);
    sim = await startApnsSim({ keys: [{ keyId: t.key.keyId, teamId: t.teamId, publicKey: t.key.publicKeyPem }] });
    const first = await sender();
    await sender();
    const one = await send(env, t.app, { included_segments: ['Subscribed Users'], contents: { en: 'one' } });
    expect((await waitFinal(env.pool, Number(one.body.id))).final).to.include({ status: 'approved', sent: DEVICES, failed: 0 });
    await first.stop();
    senders.splice(senders.indexOf(first), 1);
    await sender();
    const two = await send(env, t.app, { included_segments: ['Subscribed Users'], contents: { en: 'two' } });
    expect((await waitFinal(env.pool, Number(two.body.id))).final).to.include({ status: 'approved', sent: DEVICES, failed: 0 });
    expect(sim.stats().byStatus['200']).to.equal(2 * DEVICES);
    expect(sim.providerTokens(t.teamId)).to.equal(1);
    const minted = await Promise.all(processes.map(async (p) => (await p.minted.get()).values.reduce((n, v) => n + v.value, 0)));
    expect(minted.reduce((a, b) => a + b)).to.equal(1);
  });
});
