// Several included_segments (issue 38 point 3): their union, each install once, excluded_segments
// subtracted; the estimate, total_recipients and the pushes at the simulator agree exactly, and a
// 51st name is refused with the sentence docs/api.md gives.
import { expect } from 'chai';
import * as OneSignal from '@onesignal/node-onesignal';
import { useTestEnv } from '../env/index.js';
import { addDevices, startDeliveryStack, waitFinal, type DeliveryStack } from './fixtures.js';
import { sendAudiences } from '../../api/dashboard/send-audiences.js';

const segment = (name: string, filters: Record<string, unknown>[]) => Object.assign(new OneSignal.Segment(), { name, filters });
const tag = (key: string, relation: string, value?: string) => ({ field: 'tag', key, relation, ...(value === undefined ? {} : { value }) });

describe('delivery: several included_segments', () => {
  const env = useTestEnv();
  let stack: DeliveryStack;
  let appId: string;
  let gold: string[];
  let frenchGold: string[];
  let goldBeta: string[];
  let beta: string[];
  let plain: string[];

  before(async () => {
    stack = await startDeliveryStack(env, 'severalsegments');
    appId = stack.app.app.id;
    gold = await addDevices(env.pool, appId, 3, { prefix: '5a', tags: { tier: 'gold' }, language: 'en' });
    frenchGold = await addDevices(env.pool, appId, 1, { prefix: '5c', tags: { tier: 'gold' }, language: 'fr' });
    goldBeta = await addDevices(env.pool, appId, 1, { prefix: '5d', tags: { tier: 'gold', beta: '1' }, language: 'en' });
    beta = await addDevices(env.pool, appId, 1, { prefix: '5e', tags: { beta: '1' }, language: 'en' });
    plain = await addDevices(env.pool, appId, 2, { prefix: '5b', language: 'en' });
    // An unsubscribed gold install: in no segment's audience.
    const [gone] = await addDevices(env.pool, appId, 1, { prefix: '5f', tags: { tier: 'gold' } });
    await env.pool.query('UPDATE subscriptions SET subscribed = false WHERE token = $1', [gone]);
    await stack.client.createSegment(appId, segment('Gold', [tag('tier', '=', 'gold')]));
    await stack.client.createSegment(appId, segment('Beta', [tag('beta', 'exists')]));
    await stack.client.createSegment(appId, segment('French', [{ field: 'language', relation: '=', value: 'fr' }]));
  });
  after(() => stack.close());

  /** Sends through the REST call; the estimate it answers, the final stats and the tokens pushed. */
  async function sendTo(body: Record<string, unknown>) {
    const before = stack.sim.deliveries().length;
    const res = await stack.api.request('POST', '/api/v1/notifications', { key: stack.key, body: { app_id: appId, contents: { en: 'x' }, ...body } });
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    const { final } = await waitFinal(env.pool, Number(res.body.id));
    const tokens = stack.sim.deliveries().slice(before).map((d) => d.token).sort();
    return { id: Number(res.body.id), estimate: res.body.estimate as number, final, tokens };
  }

  it('Subscribed Users and a tag segment: every subscribed install once, those in both included', async () => {
    const { estimate, final, tokens } = await sendTo({ included_segments: ['Subscribed Users', 'Gold'] });
    const all = [...gold, ...frenchGold, ...goldBeta, ...beta, ...plain].sort();
    expect(estimate).to.equal(8);
    expect(final).to.include({ status: 'approved', total_recipients: 8, sent: 8, failed: 0 });
    expect(tokens).to.deep.equal(all); // sorted, so a token pushed twice would show twice
  });

  it('two overlapping tag segments with excluded_segments subtracted: the union once, less the excluded', async () => {
    // Gold ∪ Beta = gold, frenchGold, goldBeta (in both), beta; French subtracts frenchGold.
    const { id, estimate, final, tokens } = await sendTo({ included_segments: ['Gold', 'Beta'], excluded_segments: ['French'] });
    expect((await sendAudiences(env.pool, appId, [id])).get(id)).to.equal('Gold or Beta, without French'); // the dashboard's words
    expect(estimate).to.equal(5);
    expect(final).to.include({ status: 'approved', total_recipients: 5, sent: 5, failed: 0 });
    expect(tokens).to.deep.equal([...gold, ...goldBeta, ...beta].sort());
  });

  it('the same send with the names in the other order and repeated reaches the same installs', async () => {
    const { estimate, tokens } = await sendTo({ included_segments: ['Beta', 'Gold', 'Beta'], excluded_segments: ['French'] });
    expect(estimate).to.equal(5);
    expect(tokens).to.deep.equal([...gold, ...goldBeta, ...beta].sort());
  });

  it('50 names are accepted, 51 refused with a sentence; an unknown second name is refused as one is', async () => {
    const names = (n: number) => Array.from({ length: n }, (_, i) => (i % 2 ? 'Gold' : 'Beta'));
    const ok = await stack.api.request('POST', '/api/v1/notifications', { key: stack.key, body: { app_id: appId, contents: { en: 'x' }, included_segments: names(50), send_after: new Date(Date.now() + 3_600_000).toISOString() } });
    expect([ok.status, ok.body.estimate], JSON.stringify(ok.body)).to.deep.equal([200, 6]); // scheduled: 200
    const tooMany = await stack.api.request('POST', '/api/v1/notifications', { key: stack.key, body: { app_id: appId, contents: { en: 'x' }, included_segments: names(51) } });
    expect([tooMany.status, tooMany.body.errors]).to.deep.equal([422, ['included_segments holds 1 to 50 segment names; this request names 51.']]);
    const unknown = await stack.api.request('POST', '/api/v1/notifications', { key: stack.key, body: { app_id: appId, contents: { en: 'x' }, included_segments: ['Gold', 'Everyone'] } });
    expect([unknown.status, unknown.body.errors]).to.deep.equal([422, ['Unknown segment "Everyone". Use Subscribed Users, Active Users, Inactive Users or a segment defined for this app.']]);
  });
});
