// Apple's broadcast push behind activity_id, end to end through the official client (issue 29):
// an App with spec.liveActivities.broadcast gets a channel at its first startLiveActivity of an
// activity, named in the push-to-start (aps.input-push-channel); each updateLiveActivity then goes
// as ONE broadcast request to the channel (which the simulator hands to every device subscribed
// to it) plus per-token pushes to the installs that registered an update token (the devices
// before iOS 18). The client's calls are unchanged. When channel management fails, the start goes
// without a channel, it is counted, and updates go per token only.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import type { ApnsSim, ApnsKeyPair } from '../../apns-sim/index.js';
import { setInvoiceOverdue } from '../../core/apps/app-store.js';
import { readChannelHealth } from '../../core/live-activities/channel-health.js';
import { token, waitFinal } from './fixtures.js';
import { useBroadcastHarness, type Stack } from './live-activity-broadcast-harness.js';

describe('delivery: Live Activities over broadcast channels through the official client', function () {
  this.timeout(120_000);
  const h = useBroadcastHarness();
  const { env, stacks, TEAM, stack, install, registerUpdateToken, start, update, startAps, broadcastsOf, report, channelRow } = h;
  let sim: ApnsSim;
  let keyPair: ApnsKeyPair;
  before(() => {
    sim = h.sim;
    keyPair = h.keyPair;
  });

  it('a start makes the channel once and names it in every push-to-start; updates go once to it plus per token to the registered tokens', async () => {
    const s = await stack('labroadcast', { broadcast: true });
    const bundle = s.app.app.bundleId;
    const a = await install(s, 'a1');
    const b = await install(s, 'a2');
    // A development build: its token is the sandbox gateway's, and the channel lives in the App's environment (production).
    const dev = await install(s, 'a3', { test_type: 1 });
    const started = await start(s, 'match-9');
    expect((await waitFinal(env.pool, Number(started.notification_id))).final).to.include({ sent: 3 });
    const channels = sim.channels(bundle);
    expect(channels, 'one channel for the activity').to.have.length(1);
    const [channelId] = channels;
    expect(startAps(a.startToken)['input-push-channel']).to.equal(channelId);
    expect(startAps(b.startToken)['input-push-channel']).to.equal(channelId);
    expect(startAps(dev.startToken), 'no channel of another environment').to.not.have.property('input-push-channel');

    // iOS 18 devices joined the channel with the started activity; a device before iOS 18 (a2)
    // registered an update token instead.
    const channelDevices = [token('c1', 1), token('c2', 1), token('c3', 1)];
    for (const t of channelDevices) sim.subscribe(channelId, t);
    const laToken = token('e2', 1);
    await registerUpdateToken(s, b.id, 'match-9', laToken);

    // A second start of the same activity reuses the channel.
    sim.reset();
    await waitFinal(env.pool, Number((await start(s, 'match-9')).notification_id));
    expect(sim.channels(bundle)).to.deep.equal([channelId]);
    expect(startAps(a.startToken)['input-push-channel']).to.equal(channelId);

    for (const score of [1, 2]) {
      sim.reset();
      const res = await update(s, 'match-9', score);
      // The answer comes after the broadcast went out: it is in the log already.
      const requests = broadcastsOf(channelId);
      expect(requests, 'one broadcast request per update').to.have.length(1);
      expect(requests[0].status).to.equal(200);
      expect(requests[0].headers).to.include({ 'apns-push-type': 'liveactivity', 'apns-channel-id': channelId });
      const aps = (JSON.parse(requests[0].payload) as { aps: Record<string, unknown> }).aps;
      expect(aps).to.deep.include({ event: 'update', 'content-state': { home: score, away: 0 }, alert: { body: `Goal ${score}` } });
      expect(sim.deliveries(undefined, channelId).filter((d) => !d.broadcast).map((d) => d.token).sort()).to.deep.equal(channelDevices);
      // The device before iOS 18: its own push, through the send.
      expect((await waitFinal(env.pool, Number(res.id))).final).to.include({ total_recipients: 1, sent: 1 });
      const own = sim.deliveries(laToken);
      expect(own).to.have.length(1);
      expect(own[0].channelId).to.equal(undefined);
      expect(JSON.parse(own[0].payload).aps['content-state']).to.deep.equal({ home: score, away: 0 });
    }
    const metric = await s.metrics.registry.getSingleMetricAsString('herald_live_activity_broadcasts_total');
    expect(metric).to.contain('herald_live_activity_broadcasts_total{status="200"} 2');
  });

  it('an activity started without broadcast channels (another id, never started) gets no broadcast: per token only', async () => {
    const s = stacks[0];
    const i = await install(s, 'b1');
    const laToken = token('e3', 1);
    await registerUpdateToken(s, i.id, 'app-started-7', laToken);
    const res = await update(s, 'app-started-7', 3);
    expect((await waitFinal(env.pool, Number(res.id))).final).to.include({ sent: 1 });
    expect(sim.deliveries().filter((d) => d.broadcast)).to.deep.equal([]);
    expect(sim.deliveries(laToken)).to.have.length(1);
  });

  it('an App without spec.liveActivities.broadcast makes no channel and names none', async () => {
    const s = await stack('laplain', { broadcast: false });
    const a = await install(s, 'c9');
    await waitFinal(env.pool, Number((await start(s, 'match-10')).notification_id));
    expect(sim.channels(s.app.app.bundleId)).to.deep.equal([]);
    expect(startAps(a.startToken)).to.not.have.property('input-push-channel');
  });

  it('a refused start (422, a paused app’s 402) makes no channel at Apple and no row; the accepted one after makes it', async () => {
    const s = await stack('larefused', { broadcast: true });
    const a = await install(s, 'b7');
    const path = `/api/v1/apps/${s.app.app.id}/activities/activity/MatchAttributes`;
    const body = (activityId: string, extra: Record<string, unknown> = {}) => ({
      name: 'kick-off', event: 'start', activity_id: activityId, event_attributes: { home: 'A', away: 'B' },
      event_updates: { home: 0, away: 0 }, contents: { en: 'Kick-off' }, included_segments: ['Subscribed Users'], ...extra,
    });
    const rows = async () => (await env.pool.query('SELECT count(*)::int AS n FROM live_activity_channels WHERE app_id = $1', [s.app.app.id])).rows[0].n as number;
    const invalid = await s.api.request('POST', path, { key: s.key, body: body('match-r1', { event_updates: 'not an object' }) });
    expect(invalid.status).to.equal(422);
    await setInvoiceOverdue(env.pool, s.app.app.id, true);
    const paused = await s.api.request('POST', path, { key: s.key, body: body('match-r2') });
    expect(paused.status).to.equal(402);
    expect(sim.channels(s.app.app.bundleId)).to.deep.equal([]);
    expect(await rows()).to.equal(0);
    await setInvoiceOverdue(env.pool, s.app.app.id, false);
    const started = await start(s, 'match-r3');
    await waitFinal(env.pool, Number(started.notification_id));
    expect(sim.channels(s.app.app.bundleId)).to.have.length(1);
    expect(await rows()).to.equal(1);
    expect(startAps(a.startToken)['input-push-channel']).to.equal(sim.channels(s.app.app.bundleId)[0]);
  });

  it('a start whose credentials do not unseal is accepted (201) without a channel, counted, not a 500', async () => {
    const s = await stack('launseal', { broadcast: true });
    const a = await install(s, 'c7');
    await env.pool.query("UPDATE app_credentials SET material = 'not sealed'::bytea WHERE app_id = $1", [s.app.app.id]);
    const started = await s.api.request('POST', `/api/v1/apps/${s.app.app.id}/activities/activity/MatchAttributes`, {
      key: s.key,
      body: { name: 'kick-off', event: 'start', activity_id: 'match-u1', event_attributes: { home: 'A', away: 'B' }, event_updates: { home: 0, away: 0 }, contents: { en: 'Kick-off' }, include_subscription_ids: [a.id] },
    });
    expect(started.status).to.equal(201);
    expect(sim.channels(s.app.app.bundleId)).to.deep.equal([]);
    const failures = await s.metrics.registry.getSingleMetricAsString('herald_live_activity_channel_failures_total');
    expect(failures).to.match(/herald_live_activity_channel_failures_total\{stage="create",reason="Error"\} 1/);
  });

  it('an update whose channel lookup fails after the send is committed is accepted (200), goes per token, and is counted', async () => {
    const s = await stack('ladberror', { broadcast: true });
    const a = await install(s, 'c8');
    await waitFinal(env.pool, Number((await start(s, 'match-d1')).notification_id));
    const laToken = token('e8', 1);
    await registerUpdateToken(s, a.id, 'match-d1', laToken);
    sim.reset();
    // The channel table gone from under the update (this file's own database): findActivityChannel throws.
    await env.pool.query('ALTER TABLE live_activity_channels RENAME TO live_activity_channels_away');
    let res;
    try {
      res = await update(s, 'match-d1', 1);
    } finally {
      await env.pool.query('ALTER TABLE live_activity_channels_away RENAME TO live_activity_channels');
    }
    expect((await waitFinal(env.pool, Number(res.id))).final).to.include({ sent: 1 });
    expect(sim.deliveries().filter((d) => d.broadcast)).to.deep.equal([]);
    expect(sim.deliveries(laToken)).to.have.length(1);
    const failures = await s.metrics.registry.getSingleMetricAsString('herald_live_activity_channel_failures_total');
    expect(failures).to.match(/herald_live_activity_channel_failures_total\{stage="broadcast",reason="Error"\} 1/);
  });

  it('channel management failing falls back to per-token delivery, counted in herald_live_activity_channel_failures_total', async () => {
    const s = await stack('lafallback', { broadcast: true, managementUrl: 'https://127.0.0.1:1' });
    const a = await install(s, 'f1');
    const started = await start(s, 'match-11');
    expect((await waitFinal(env.pool, Number(started.notification_id))).final).to.include({ sent: 1 });
    expect(startAps(a.startToken)).to.not.have.property('input-push-channel');
    const failures = await s.metrics.registry.getSingleMetricAsString('herald_live_activity_channel_failures_total');
    expect(failures).to.match(/herald_live_activity_channel_failures_total\{stage="create",reason="ConnectionError"\} 1/);
    const laToken = token('e4', 1);
    await registerUpdateToken(s, a.id, 'match-11', laToken);
    sim.reset();
    const res = await update(s, 'match-11', 1);
    expect((await waitFinal(env.pool, Number(res.id))).final).to.include({ sent: 1 });
    expect(sim.deliveries().filter((d) => d.broadcast)).to.deep.equal([]);
    expect(sim.deliveries(laToken)).to.have.length(1);
  });

  async function startedWithToken(s: Stack, name: string, activityId: string, laToken: string): Promise<void> {
    const i = await install(s, name);
    await waitFinal(env.pool, Number((await start(s, activityId)).notification_id));
    await registerUpdateToken(s, i.id, activityId, laToken);
  }

  it("the update's report and the list call say how it went out: the broadcast accepted, the tokens sent", async () => {
    const s = await stack('lastats', { broadcast: true });
    await startedWithToken(s, 'a5', 'match-s1', token('e5', 1));
    const res = await update(s, 'match-s1', 1);
    await waitFinal(env.pool, Number(res.id));
    const got = await report(s, res.id);
    expect(got).to.include({ total_recipients: 1, sent: 1, failed: 0 });
    expect(got.live_activity).to.deep.equal({ event: 'update', activity_id: 'match-s1', broadcast: { status: 'accepted' } });
    const list = await s.api.request('GET', `/api/v1/notifications?app_id=${s.app.app.id}&limit=5`, { key: s.key });
    const listed = list.body.notifications.find((n: { id: number }) => String(n.id) === res.id);
    expect(listed.live_activity.broadcast).to.deep.equal({ status: 'accepted' });
    // The start went to no channel: its report says nothing of one.
    expect(list.body.notifications.find((n: { live_activity?: { event: string } }) => n.live_activity?.event === 'start').live_activity).to.not.have.property('broadcast');
  });

  it('a refused broadcast is in the report with its reason, the tokens still go, and the App is marked failing until a broadcast is accepted', async () => {
    const s = await stack('larefusedbc', { broadcast: true });
    const laToken = token('e6', 1);
    await startedWithToken(s, 'a6', 'match-x1', laToken);
    // The channel deleted at Apple behind Herald's back: Apple answers BadChannelId.
    const { channel_id: channelId } = await channelRow(s, 'match-x1');
    const managed = await fetchDelete(channelId, s.app.app.bundleId);
    expect(managed).to.equal(204);
    sim.reset();
    const res = await update(s, 'match-x1', 1);
    expect((await waitFinal(env.pool, Number(res.id))).final).to.include({ sent: 1 });
    expect(sim.deliveries(laToken)).to.have.length(1);
    expect((await report(s, res.id)).live_activity.broadcast).to.deep.equal({ status: 'failed', reason: 'BadChannelId' });
    expect(await readChannelHealth(env.pool, s.app.app.id)).to.include({ failing: true, stage: 'broadcast', reason: 'BadChannelId' });
    const failures = await s.metrics.registry.getSingleMetricAsString('herald_live_activity_channel_failures_total');
    expect(failures).to.match(/herald_live_activity_channel_failures_total\{stage="broadcast",reason="BadChannelId"\} 1/);
    // A new activity gets a channel; its accepted broadcast clears the mark.
    await waitFinal(env.pool, Number((await start(s, 'match-x2')).notification_id));
    await waitFinal(env.pool, Number((await update(s, 'match-x2', 1)).id));
    expect(await readChannelHealth(env.pool, s.app.app.id)).to.include({ failing: false });
  });

  /** Apple's DELETE at the simulator's management port, as another tool of the team would call it. */
  async function fetchDelete(channelId: string, bundleId: string): Promise<number> {
    const { createChannelManager } = await import('../../core/apns/channel-management.js');
    const manager = createChannelManager(
      { credentials: { kind: 'token', keyP8: keyPair.privateKeyP8, keyId: keyPair.keyId, teamId: TEAM }, topic: bundleId, environment: 'production', url: sim.managementUrl, ca: readFileSync(sim.caFile, 'utf8') },
    );
    try {
      return (await manager.delete(channelId)).status;
    } finally {
      manager.close();
    }
  }
});
