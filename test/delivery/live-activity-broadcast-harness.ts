// The stack of the broadcast channel tests (issue 29), shared by live-activity-broadcast.test.ts
// (starts, updates, failures, the report) and live-activity-channels.test.ts (deletion, quota, the
// app-facing call): one simulator and one sender per file, an api with its own broadcast service
// per app, and the official client's calls as an app backend makes them.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import * as OneSignal from '@onesignal/node-onesignal';
import { useTestEnv } from '../env/index.js';
import { startApnsSim, type ApnsSim } from '../../apns-sim/index.js';
import { createKey } from '../../core/apps/keys.js';
import { silentLogger } from '../../core/log.js';
import { createApiMetrics } from '../../api/shared/metrics.js';
import { LiveActivityBroadcast } from '../../api/live-activities/broadcast.js';
import type { Sender } from '../../sender/index.js';
import { startTestApi, type TestApi } from '../support/api-server.js';
import { createTestApp, startTestSender, token, waitFinal, type TestApp } from './fixtures.js';
import { ChannelSweep } from '../../core/live-activities/channel-sweep.js';

export 
interface Stack {
  app: TestApp;
  api: TestApi;
  client: OneSignal.DefaultApi;
  broadcast: LiveActivityBroadcast;
  metrics: ReturnType<typeof createApiMetrics>;
  key: string;
}

export type BroadcastHarness = ReturnType<typeof useBroadcastHarness>;

/** Registers the file's hooks (call it inside the describe); `sim` and `keyPair` are set in its before hook. */
export function useBroadcastHarness() {
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


  return {
    env, stacks, TEAM, stack, install, registerUpdateToken, start, update, end, startAps, broadcastsOf, sweep, report, startAll, channelRow,
    get sim() {
      return sim;
    },
    get keyPair() {
      return keyPair;
    },
  };
}
