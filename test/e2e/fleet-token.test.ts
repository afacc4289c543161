// One provider token per team and key across processes (issue 37), through `herald sender` as
// cli/ builds it (core/apns/fleet-provider-tokens.ts on the process's pool): two sender processes
// deliver a send, one is killed and another started (a restart), a second send goes out. The
// simulator, standing in for Apple, saw one token for the team, and the senders' metrics say one
// was minted between them.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { startApnsSim, type ApnsSim } from '../../apns-sim/index.js';
import { addDevices, createTestApp, send, waitFinal } from '../delivery/fixtures.js';
import { startRole, type Proc } from './harness.js';

const DEVICES = 2000;

/** The process's herald_provider_tokens_minted_total, all labels summed. */
async function minted(proc: Proc): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${proc.port}/metrics`)).text();
  return text.split('\n').filter((l) => l.startsWith('herald_provider_tokens_minted_total{')).reduce((n, l) => n + Number(l.split(' ').pop()), 0);
}

describe('e2e: one provider token across sender processes and a restart', function () {
  this.timeout(180_000);
  const env = useTestEnv();
  let sim: ApnsSim | undefined;
  const procs: Proc[] = [];

  after(async () => {
    await Promise.all(procs.map((p) => p.kill('SIGKILL')));
    await sim?.close();
  });

  it('two senders, one restarted: the simulator saw one token for the team, minted once', async () => {
    const t = await createTestApp(env.pool, 'fleet-e2e');
    await addDevices(env.pool, t.app.id, DEVICES);
    sim = await startApnsSim({ keys: [{ keyId: t.key.keyId, teamId: t.teamId, publicKey: t.key.publicKeyPem }] });
    const senderEnv = env.childEnv({ HERALD_APNS_URL: sim.url, HERALD_APNS_CA_FILE: sim.caFile, HERALD_SENDER_CONCURRENCY: '2' });
    const [a, b] = await Promise.all([startRole('sender', senderEnv), startRole('sender', senderEnv)]);
    procs.push(a, b);
    const one = await send(env, t.app, { included_segments: ['Subscribed Users'], contents: { en: 'one' } });
    expect((await waitFinal(env.pool, Number(one.body.id))).final).to.include({ status: 'approved', sent: DEVICES, failed: 0 });
    const mintedByA = await minted(a); // read before it goes
    await a.kill('SIGTERM');
    const c = await startRole('sender', senderEnv);
    procs.push(c);
    const two = await send(env, t.app, { included_segments: ['Subscribed Users'], contents: { en: 'two' } });
    expect((await waitFinal(env.pool, Number(two.body.id))).final).to.include({ status: 'approved', sent: DEVICES, failed: 0 });
    expect(sim.providerTokens(t.teamId)).to.equal(1);
    expect(mintedByA + (await minted(b)) + (await minted(c))).to.equal(1);
  });
});
