// Broadcast channels after their activities (issue 29): deleted at Apple after an end's dismissal
// or when they age out (the scheduler's sweep), a DELETE Apple does not take tried again, the
// quota policy, and the app-facing channel call of an app that starts activities itself.
import { expect } from 'chai';
import type { ApnsSim } from '../../apns-sim/index.js';
import { silentLogger } from '../../core/log.js';
import { channelSweepObserver, createSenderMetrics } from '../../sender/metrics.js';
import { ChannelSweep } from '../../core/live-activities/channel-sweep.js';
import { readChannelHealth } from '../../core/live-activities/channel-health.js';
import { token, waitFinal } from './fixtures.js';
import { useBroadcastHarness, type Stack } from './live-activity-broadcast-harness.js';

describe('delivery: Live Activity broadcast channels after their activities, and the app-facing channel call', function () {
  this.timeout(120_000);
  const h = useBroadcastHarness();
  const { env, stack, install, start, update, end, startAps, broadcastsOf, sweep, report, startAll, channelRow } = h;
  let sim: ApnsSim;
  before(() => {
    sim = h.sim;
  });

  it('an end deletes the channel at Apple after its dismissal date (the scheduler\'s sweep), and a later start makes a new one', async () => {
    const s = await stack('laend', { broadcast: true });
    const bundle = s.app.app.bundleId;
    await install(s, 'ae');
    const [first, second] = await startAll(s, 'match-e1', 'match-e2');
    expect(sim.channels(bundle).sort()).to.deep.equal([first, second].sort());
    const device = token('c9', 1);
    sim.subscribe(first, device);

    // An end dismissed an hour from now: the end goes out on the channel, which is kept until then.
    sim.reset();
    const inAnHour = Math.floor(Date.now() / 1000) + 3600;
    const ended = await end(s, 'match-e1', inAnHour);
    expect(broadcastsOf(first)).to.have.length(1);
    expect(sim.deliveries(device)).to.have.length(1);
    expect(JSON.parse(sim.deliveries(device)[0].payload).aps).to.include({ event: 'end', 'dismissal-date': inAnHour });
    expect((await report(s, ended.id)).live_activity).to.deep.include({ event: 'end', broadcast: { status: 'accepted' } });
    const row = await channelRow(s, 'match-e1');
    expect(row.ended_at).to.be.an.instanceOf(Date);
    expect(Math.round(row.delete_after.getTime() / 1000)).to.equal(inAnHour);
    expect(await sweep()).to.deep.equal({ retired: 0, deleted: 0, failed: 0 });
    expect(sim.channels(bundle)).to.include(first);

    // The dismissal date comes: the sweep deletes it at Apple; the other activity's channel stays.
    await env.pool.query("UPDATE live_activity_channels SET delete_after = now() - interval '1 second' WHERE channel_id = $1", [first]);
    expect(await sweep()).to.deep.equal({ retired: 1, deleted: 1, failed: 0 });
    expect(sim.channels(bundle)).to.deep.equal([second]);
    expect(await channelRow(s, 'match-e1')).to.equal(undefined);
    expect((await env.pool.query('SELECT count(*)::int AS n FROM live_activity_channels_retired WHERE app_id = $1', [s.app.app.id])).rows[0].n).to.equal(0);

    // The same activity id started again: a new channel, named in the push-to-start.
    sim.reset();
    await waitFinal(env.pool, Number((await start(s, 'match-e1')).notification_id));
    const renewed = (await channelRow(s, 'match-e1')).channel_id;
    expect(renewed).to.not.equal(first);
    expect(sim.channels(bundle).sort()).to.deep.equal([second, renewed].sort());
  });

  it('an end without a dismissal date is deleted 4 hours later at most; a channel unused 12 hours after its last start ages out', async () => {
    const s = await stack('laage', { broadcast: true });
    const bundle = s.app.app.bundleId;
    await install(s, 'af');
    const [, old] = await startAll(s, 'match-g1', 'match-g2');
    await end(s, 'match-g1');
    const row = await channelRow(s, 'match-g1');
    const hours = (row.delete_after.getTime() - row.ended_at.getTime()) / 3_600_000;
    expect(hours).to.be.closeTo(4, 0.01);
    // A dismissal date past 4 hours is held to 4 hours (Apple removes an ended activity by then).
    await waitFinal(env.pool, Number((await start(s, 'match-g3')).notification_id));
    await end(s, 'match-g3', Math.floor(Date.now() / 1000) + 48 * 3600);
    const held = await channelRow(s, 'match-g3');
    expect((held.delete_after.getTime() - held.ended_at.getTime()) / 3_600_000).to.be.closeTo(4, 0.01);

    // match-g2 was last started 12 hours and a minute ago: every activity on it is over.
    await env.pool.query("UPDATE live_activity_channels SET started_at = now() - interval '12 hours 1 minute' WHERE channel_id = $1", [old]);
    expect(await sweep()).to.deep.include({ retired: 1, deleted: 1 });
    expect(sim.channels(bundle)).to.not.include(old);
    expect(sim.channels(bundle)).to.have.length(2);
  });

  it("a DELETE Apple does not take is tried again later, counted and marks the App failing; one it takes clears it", async () => {
    const s = await stack('ladelfail', { broadcast: true });
    await install(s, 'b5');
    await waitFinal(env.pool, Number((await start(s, 'match-h1')).notification_id));
    const channelId = (await channelRow(s, 'match-h1')).channel_id;
    await env.pool.query("UPDATE live_activity_channels SET delete_after = now() WHERE channel_id = $1", [channelId]);
    // As a sender leading the scheduler counts it (the controller counts the same, controller/metrics.ts).
    const senderMetrics = createSenderMetrics();
    const broken = new ChannelSweep(env.pool, { broadcastUrl: 'https://127.0.0.1:1' }, silentLogger(), channelSweepObserver(senderMetrics));
    expect(await broken.sweep()).to.deep.equal({ retired: 1, deleted: 0, failed: 1 });
    const failures = await senderMetrics.registry.getSingleMetricAsString('herald_live_activity_channel_failures_total');
    expect(failures).to.match(/herald_live_activity_channel_failures_total\{stage="delete",reason="ConnectionError"\} 1$/m);
    expect(sim.channels(s.app.app.bundleId)).to.deep.equal([channelId]);
    expect(await readChannelHealth(env.pool, s.app.app.id)).to.include({ failing: true, stage: 'delete', reason: 'ConnectionError' });
    // Not again before its 5 minutes are up; then the DELETE goes through.
    expect(await sweep()).to.deep.equal({ retired: 0, deleted: 0, failed: 0 });
    await env.pool.query("UPDATE live_activity_channels_retired SET next_attempt_at = now() WHERE channel_id = $1", [channelId]);
    expect(await sweep()).to.deep.equal({ retired: 0, deleted: 1, failed: 0 });
    expect(sim.channels(s.app.app.bundleId)).to.deep.equal([]);
    expect(await readChannelHealth(env.pool, s.app.app.id)).to.include({ failing: false });
  });

  it('at the quota an ended channel makes room (deleted at Apple); with none ended, starts go per token (QuotaReached), counted and shown', async () => {
    const s = await stack('laquota', { broadcast: true, channelQuota: 2 });
    const bundle = s.app.app.bundleId;
    const a = await install(s, 'b6');
    const [, q2] = await startAll(s, 'match-q1', 'match-q2');
    await end(s, 'match-q1', Math.floor(Date.now() / 1000) + 3600);
    // The third: q1 (ended) is deleted to make room.
    sim.reset();
    await waitFinal(env.pool, Number((await start(s, 'match-q3')).notification_id));
    const q3 = (await channelRow(s, 'match-q3')).channel_id;
    expect(sim.channels(bundle).sort()).to.deep.equal([q2, q3].sort());
    expect(await channelRow(s, 'match-q1')).to.equal(undefined);
    expect(startAps(a.startToken)['input-push-channel']).to.equal(q3);
    // The fourth: nothing ended, both started just now: no channel, the start goes per token.
    sim.reset();
    await waitFinal(env.pool, Number((await start(s, 'match-q4')).notification_id));
    expect(startAps(a.startToken)).to.not.have.property('input-push-channel');
    expect(sim.channels(bundle).sort()).to.deep.equal([q2, q3].sort());
    const failures = await s.metrics.registry.getSingleMetricAsString('herald_live_activity_channel_failures_total');
    expect(failures).to.match(/herald_live_activity_channel_failures_total\{stage="create",reason="QuotaReached"\} 1/);
    expect(await readChannelHealth(env.pool, s.app.app.id)).to.include({ failing: true, stage: 'create', reason: 'QuotaReached' });
    // One idle past 8 hours (its activities all ended by ActivityKit) may make room too.
    await env.pool.query("UPDATE live_activity_channels SET started_at = now() - interval '8 hours 1 minute' WHERE channel_id = $1", [q2]);
    sim.reset();
    await waitFinal(env.pool, Number((await start(s, 'match-q4')).notification_id));
    const q4 = (await channelRow(s, 'match-q4')).channel_id;
    expect(sim.channels(bundle).sort()).to.deep.equal([q3, q4].sort());
    expect(startAps(a.startToken)['input-push-channel']).to.equal(q4);
  });

  describe('the app-facing channel call (an app that starts activities itself)', () => {
    let facing: Stack;
    const path = (s: Stack, activity: string, query: string) => `/api/v1/apps/${s.app.app.id}/live_activities/${activity}/channel?${query}`;

    it('gives the activity\'s channel, made on first need and the same one the starts name; an install of another environment gets none', async () => {
      const s = (facing = await stack('lafacing', { broadcast: true }));
      const a = await install(s, 'ba');
      const dev = await install(s, 'bb', { test_type: 1 });
      const got = await s.api.request('GET', path(s, 'match-p1', `subscription_id=${a.id}`));
      expect(got.status).to.equal(200);
      expect(sim.channels(s.app.app.bundleId)).to.deep.equal([got.body.channel_id]);
      expect(got.body).to.deep.equal({ activity_id: 'match-p1', channel_id: got.body.channel_id });
      const again = await s.api.request('GET', path(s, 'match-p1', `subscription_id=${a.id}`));
      expect(again.body.channel_id).to.equal(got.body.channel_id);
      sim.reset();
      await waitFinal(env.pool, Number((await start(s, 'match-p1')).notification_id));
      expect(startAps(a.startToken)['input-push-channel']).to.equal(got.body.channel_id);
      expect((await s.api.request('GET', path(s, 'match-p1', `subscription_id=${dev.id}`))).body).to.deep.equal({ activity_id: 'match-p1', channel_id: null });
      // An update reaches the devices that joined through the app's own start.
      sim.subscribe(got.body.channel_id, token('c5', 1));
      sim.reset();
      await update(s, 'match-p1', 4);
      expect(sim.deliveries(token('c5', 1))).to.have.length(1);
    });

    it('refuses what it cannot serve: a bad activity id or subscription id (422), an unknown install or an app without channels (404)', async () => {
      const s = facing;
      const a = await install(s, 'bc');
      const before = sim.channels(s.app.app.bundleId).length;
      const bad = await s.api.request('GET', path(s, 'x'.repeat(129), `subscription_id=${a.id}`));
      expect(bad.status).to.equal(422);
      const longest = await s.api.request('GET', path(s, 'x'.repeat(128), `subscription_id=${a.id}`));
      expect(longest.status).to.equal(200);
      const noSub = await s.api.request('GET', path(s, 'match-p9', ''));
      expect(noSub.status).to.equal(422);
      expect(JSON.stringify(noSub.body)).to.contain('subscription_id');
      const twice = await s.api.request('GET', path(s, 'match-p9', `subscription_id=${a.id}&subscription_id=${a.id}`));
      expect(twice.status).to.equal(422);
      const hash = await s.api.request('GET', path(s, 'match-p9', `subscription_id=${a.id}&external_id_auth_hash=${'a'.repeat(129)}`));
      expect(hash.status).to.equal(422);
      expect(JSON.stringify(hash.body)).to.contain('external_id_auth_hash');
      const unknown = await s.api.request('GET', path(s, 'match-p9', 'subscription_id=00000000-0000-4000-8000-000000000000'));
      expect(unknown.status).to.equal(404);
      const plain = await stack('laplain2', { broadcast: false });
      const p = await install(plain, 'bd');
      const none = await s.api.request('GET', `/api/v1/apps/${plain.app.app.id}/live_activities/match-p1/channel?subscription_id=${p.id}`);
      expect(none.status).to.equal(404);
      expect(JSON.stringify(none.body)).to.contain('broadcast');
      // Another app's install through this app's path: unknown here.
      const other = await s.api.request('GET', path(s, 'match-p1', `subscription_id=${p.id}`));
      expect(other.status).to.equal(404);
      // Only the one call it served made a channel.
      expect(sim.channels(s.app.app.bundleId)).to.have.length(before + 1);
      expect(sim.channels(plain.app.app.bundleId)).to.deep.equal([]);
    });
  });
});
