// The controller's leader runs the shared scheduler with the operator's retention of finished
// sends (HERALD_FINISHED_SEND_RETENTION_DAYS, HERALD_CHUNK_RETENTION_DAYS), not a default of its
// own: the same settings apply whichever process leads.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { addDevices, createTestApp, send } from '../delivery/fixtures.js';
import type { RunningController } from '../../controller/index.js';
import type { KubeClients } from '../../controller/kube/client.js';
import { startTestController, useControlPlane, waitFor } from './harness.js';

describe('controller: the scheduler with the configured retention (real kube-apiserver)', function () {
  this.timeout(120_000);
  const env = useTestEnv();
  const kube = useControlPlane();
  let controller: (RunningController & { clients: KubeClients }) | undefined;

  after(async () => {
    await controller?.stop();
  });

  it('prunes a send finished 3 days ago under a retention of 2 days (the default, 90, would keep it)', async () => {
    const t = await createTestApp(env.pool, 'controller-retention');
    await addDevices(env.pool, t.app.id, 2, { externalIdPrefix: 'u-' });
    const id = (await send(env, t.app, { contents: { en: 'x' }, include_external_ids: ['u-1', 'u-2'] })).body.id;
    await env.pool.query(`UPDATE sends SET status = 'approved', finished_at = now() - interval '3 days' WHERE id = $1`, [id]);

    controller = await startTestController(env, kube.cp.kubeconfig, { finishedSendRetention: { finishedSendDays: 2, chunkDays: 1 } });
    await waitFor('the finished send pruned', async () =>
      Number((await env.pool.query('SELECT count(*) AS n FROM sends WHERE id = $1', [id])).rows[0].n) === 0);
    expect(Number((await env.pool.query('SELECT count(*) AS n FROM send_chunks WHERE send_id = $1', [id])).rows[0].n)).to.equal(0);
  });
});
