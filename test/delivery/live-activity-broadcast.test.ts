// Apple's broadcast push behind activity_id, end to end through the official client (issue 29):
// an App with spec.liveActivities.broadcast gets a channel at its first startLiveActivity of an
// activity, named in the push-to-start (aps.input-push-channel); each updateLiveActivity then goes
// as ONE broadcast request to the channel (which the simulator hands to every device subscribed
// to it) plus per-token pushes to the installs that registered an update token (the devices
// before iOS 18). The client's calls are unchanged. When channel management fails, the start goes
// without a channel, it is counted, and updates go per token only.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import * as OneSignal from '@onesignal/node-onesignal';
import { useTestEnv } from '../env/index.js';
import { startApnsSim, type ApnsSim } from '../../apns-sim/index.js';
import { createKey } from '../../core/apps/keys.js';
import { setInvoiceOverdue } from '../../core/apps/app-store.js';
import { silentLogger } from '../../core/log.js';
import { createApiMetrics } from '../../api/shared/metrics.js';
import { channelSweepObserver, createSenderMetrics } from '../../sender/metrics.js';
import { LiveActivityBroadcast } from '../../api/live-activities/broadcast.js';
import type { Sender } from '../../sender/index.js';
import { startTestApi, type TestApi } from '../support/api-server.js';
import { createTestApp, startTestSender, token, waitFinal, type TestApp } from './fixtures.js';
import { ChannelSweep } from '../../core/live-activities/channel-sweep.js';
import { readChannelHealth } from '../../core/live-activities/channel-health.js';

interface Stack {
  app: TestApp;
  api: TestApi;
  client: OneSignal.DefaultApi;
  broadcast: LiveActivityBroadcast;
  metrics: ReturnType<typeof createApiMetrics>;
  key: string;
}

describe('delivery: Live Activities over broadcast channels through the official client', function () {
  this.timeout(120_000);
  const env = useTestEnv();
  let sim: ApnsSim;
  let sender: Sender;
  const stacks: Stack[] = [];

  /** An api whose broadcast service manages channels at `managementUrl`, and an app of it. */
  async function stack(name: string, opts: { broadcast: boolean; managementUrl?: string; channelQuota?: number }): Promise<Stack> {
    const app = await createTestApp(env.pool, name, { key: keyPair, teamId: TEAM });
    if (opts.broadcast) await env.pool.query('UPDATE apps SET live_activity_broadcast = true WHERE id = $1', [app.app.id]);
    const metrics = createApiMetrics();
    const ca = await readFile(sim.caFile, 'utf8');
    const broadcast = new LiveActivityBroadcast(env.pool, { url: sim.url, ca, broadcastUrl: opts.managementUrl ?? sim.managementUrl, channelQuota: opts.channelQuota }, silentLogger(), metrics.registry);
    const api = await startTestApi(env, { metrics, liveActivityBroadcast: broadcast });
    const { key } = await createKey(env.pool, app.app.id);
    const client = new OneSignal.DefaultApi(OneSignal.createConfiguration({ restApiKey: key, baseServer: new OneSignal.ServerConfiguration(`${api.url}/api/v1`, {}) }));
    const s = { app, api, client, broadcast, metrics, key };
    stacks.push(s);
    return s;
  }

  const TEAM = 'TEAM000029';
  let keyPair: import('../../apns-sim/index.js').ApnsKeyPair;

  before(async () => {
    const { generateApnsKeyPair } = await import('../../apns-sim/index.js');
    keyPair = generateApnsKeyPair();
    sim = await startApnsSim({ keys: [{ keyId: keyPair.keyId, teamId: TEAM, publicKey: keyPair.publicKeyPem }] });
    sender = await startTestSender(env, sim);
  });
  after(async () => {
    for (const s of stacks) {
      await s.api.close();
      await s.broadcast.close();
    }
    await sender?.stop();
    await sim?.close();
  });
  beforeEach(() => sim.reset());

  /** An install as the SDK registers it, with a push-to-start token for MatchAttributes. */
  async function install(s: Stack, name: string, fields: Record<string, unknown> = {}): Promise<{ id: string; startToken: string }> {
    const created = await s.api.request('POST', `/api/v1/apps/${s.app.app.id}/subscriptions`, { body: { token: token(`d${name}`, 1), language: 'en', ...fields } });
    expect(created.status).to.equal(201);
    const startToken = token(`5${name}`, 1);
    const set = await s.api.request('PUT', `/api/v1/apps/${s.app.app.id}/activities/tokens/start/MatchAttributes/subscriptions/${created.body.id}`, { body: { activity_token: startToken, device_type: 0 } });
    expect(set.status).to.equal(200);
    return { id: created.body.id, startToken };
  }

  /** The update token an install's activity registers (a device before iOS 18: no channel). */
  async function registerUpdateToken(s: Stack, installId: string, activityId: string, laToken: string): Promise<void> {
    const set = await s.api.request('POST', `/api/v1/apps/${s.app.app.id}/live_activities/${activityId}/token`, { body: { subscription_id: installId, push_token: laToken, device_type: 0 } });
    expect(set.status).to.equal(200);
  }

  const start = (s: Stack, activityId: string) =>
    s.client.startLiveActivity(
      s.app.app.id,
      'MatchAttributes',
      Object.assign(new OneSignal.StartLiveActivityRequest(), {
        name: 'kick-off', event: 'start', activity_id: activityId, event_attributes: { home: 'A', away: 'B' },
        event_updates: { home: 0, away: 0 }, contents: { en: 'Kick-off' }, included_segments: ['Subscribed Users'],
      }),
    );
  const update = (s: Stack, activityId: string, score: number) =>
    s.client.updateLiveActivity(
      s.app.app.id,
      activityId,
      Object.assign(new OneSignal.UpdateLiveActivityRequest(), { name: 'goal', event: 'update', event_updates: { home: score, away: 0 }, contents: { en: `Goal ${score}` } }),
    );
  const startAps = (startToken: string) => {
    const got = sim.deliveries(startToken);
    expect(got, 'one push-to-start').to.have.length(1);
    return (JSON.parse(got[0].payload) as { aps: Record<string, unknown> }).aps;
  };
  const broadcastsOf = (channelId: string) => sim.deliveries(undefined, channelId).filter((d) => d.broadcast);

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

  const end = (s: Stack, activityId: string, dismissal?: number) =>
    s.client.updateLiveActivity(
      s.app.app.id,
      activityId,
      Object.assign(new OneSignal.UpdateLiveActivityRequest(), { name: 'final whistle', event: 'end', event_updates: { home: 9, away: 0 }, ...(dismissal !== undefined ? { dismissal_date: dismissal } : {}) }),
    );
  /** The scheduler's channel duty, as its leader runs it, against the simulator's management port. */
  const sweep = () => new ChannelSweep(env.pool, { broadcastUrl: sim.managementUrl, ca: sim.caFile && readFileSync(sim.caFile, 'utf8') }, silentLogger()).sweep();
  const report = async (s: Stack, id: string | undefined) => {
    const got = await s.api.request('GET', `/api/v1/notifications/${id}?app_id=${s.app.app.id}`, { key: s.key });
    expect(got.status).to.equal(200);
    return got.body;
  };
  /** Starts each activity (a start makes its channel); returns their channel ids. */
  const startAll = async (s: Stack, ...activityIds: string[]): Promise<string[]> => {
    const ids: string[] = [];
    for (const id of activityIds) {
      await waitFinal(env.pool, Number((await start(s, id)).notification_id));
      ids.push((await channelRow(s, id)).channel_id);
    }
    return ids;
  };
  const channelRow = async (s: Stack, activity: string) =>
    (await env.pool.query('SELECT channel_id, ended_at, delete_after FROM live_activity_channels WHERE app_id = $1 AND activity = $2', [s.app.app.id, activity])).rows[0];

  /** An install whose activity is started (its channel made) and that registered an update token too (a device before iOS 18). */
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
