// The App's BroadcastChannelsReady condition (issue 29, docs/operator.md): on a real kube-apiserver,
// an App with spec.liveActivities.broadcast shows its channel management's latest outcome
// (live_activity_channel_health, written by the api and the channel sweep), read at each reconcile
// and resync, with a Warning event when it fails; an App without the flag has no such condition.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { makeP8 } from '../support/apps.js';
import { recordChannelFailure, recordChannelSuccess } from '../../core/live-activities/channel-health.js';
import { condition, manifest, ok, startTestController, useControlPlane, waitFor } from './harness.js';
import type { RunningController } from '../../controller/index.js';

describe('App controller: BroadcastChannelsReady (real kube-apiserver)', function () {
  this.timeout(120_000);
  let controller: RunningController;
  after(async () => {
    await controller?.stop();
  });
  const env = useTestEnv();
  const kube = useControlPlane();

  before(async () => {
    // A resync each second: the condition follows the database without a change to the App.
    controller = await startTestController(env, kube.cp.kubeconfig, { resyncMs: 1000 });
    await kube.apply(manifest('Secret', 'stadium-apns', { type: 'Opaque', stringData: { 'key.p8': makeP8() } }));
  });

  const app = (name: string, broadcast: boolean) =>
    manifest('App', name, {
      spec: {
        bundleId: `dev.herald.${name}`,
        credentials: { type: 'token', secretRef: { name: 'stadium-apns' }, keyId: 'ABC123DEFG', teamId: 'TEAM123456' },
        liveActivities: { broadcast },
      },
    });
  const broadcastCondition = (name: string, status: string, reason: string) =>
    waitFor(`${name} BroadcastChannelsReady=${status} ${reason}`, async () => {
      const obj = await kube.getJson('app', name);
      const c = condition(obj, 'BroadcastChannelsReady');
      return c?.status === status && c.reason === reason ? { obj, c } : undefined;
    });

  it('True while channels work, False with Apple\'s reason and a Warning event when they fail, True again after a success', async () => {
    await kube.apply(app('stadium', true));
    const { obj, c: working } = await broadcastCondition('stadium', 'True', 'ChannelsWorking');
    expect(working.observedGeneration).to.equal(obj.metadata.generation);
    const appId: string = obj.status.appId;

    await recordChannelFailure(env.pool, appId, 'create', 'CannotCreateChannelConfig');
    const { c: failing } = await broadcastCondition('stadium', 'False', 'ChannelCreateFailed');
    expect(failing.message).to.contain('CannotCreateChannelConfig').and.to.contain('per token');
    const events = await waitFor('the Warning event', async () => {
      const out = ok(await kube.kubectl(['get', 'events', '--field-selector', 'involvedObject.name=stadium', '-o', 'custom-columns=TYPE:.type,REASON:.reason', '--no-headers']));
      return /Warning\s+ChannelCreateFailed/.test(out) ? out : undefined;
    });
    expect(events).to.match(/Warning\s+ChannelCreateFailed/);

    await recordChannelFailure(env.pool, appId, 'delete', 'ConnectionError');
    expect((await broadcastCondition('stadium', 'False', 'ChannelDeleteFailed')).c.message).to.contain('ConnectionError');
    await recordChannelSuccess(env.pool, appId);
    await broadcastCondition('stadium', 'True', 'ChannelsWorking');
    // Ready does not depend on it: pushes still go, per token.
    expect(condition(await kube.getJson('app', 'stadium'), 'Ready')).to.include({ status: 'True' });
  });

  it('an App without spec.liveActivities.broadcast has no such condition, and loses it when the flag goes', async () => {
    await kube.apply(app('plain', false));
    const obj = await waitFor('plain Ready', async () => {
      const o = await kube.getJson('app', 'plain');
      return condition(o, 'Ready')?.status === 'True' ? o : undefined;
    });
    expect(condition(obj, 'BroadcastChannelsReady')).to.equal(undefined);
    await kube.apply(app('stadium', false));
    await waitFor('stadium without the condition', async () => {
      const o = await kube.getJson('app', 'stadium');
      return o.metadata.generation === o.status.observedGeneration && !condition(o, 'BroadcastChannelsReady') ? o : undefined;
    });
  });
});
