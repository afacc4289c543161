// An App's event destinations turning failing and recovering (issue 28 points 3 and 5), on a real
// kube-apiserver with kubectl: a real receiver refuses the dispatcher's batches, and the App shows
// it: `kubectl get apps` (EVENTS: retrying, failing, ok), the condition EventDestinationsHealthy
// (reason, the destination, its last error and backlog), a Warning event when it turns failing and
// a Normal one when it recovers; events retention dropped keep the condition False with counts.
import { expect } from 'chai';
import { pino } from 'pino';
import { useTestEnv } from '../env/index.js';
import { startEventDispatcher, type EventDispatcher } from '../../core/events/dispatcher.js';
import { startReceiver, whsec, type Receiver } from '../delivery/event-receiver.js';
import { condition, manifest, ok, startTestController, useControlPlane, waitFor } from './harness.js';
import type { RunningController } from '../../controller/index.js';

describe('App controller: event destinations failing and recovering (real kube-apiserver, kubectl)', function () {
  this.timeout(120_000);
  const env = useTestEnv();
  const kube = useControlPlane();
  const secret = whsec();
  let status = 500;
  let controller: RunningController;
  let receiver: Receiver;
  let dispatcher: EventDispatcher;
  let appId: string;

  before(async () => {
    receiver = await startReceiver(secret, () => status);
    controller = await startTestController(env, kube.cp.kubeconfig, { eventHttpHosts: ['127.0.0.1'], eventHealthEveryMs: 200 });
    dispatcher = startEventDispatcher({ pool: env.pool, logger: pino({ level: 'silent' }), httpHosts: ['127.0.0.1'], backoff: { baseMs: 100, maxMs: 100 } }, false);
  });
  after(async () => {
    await dispatcher?.stop();
    await controller?.stop();
    await receiver?.close();
  });

  /** The EVENTS column of `kubectl get apps` for the App. */
  const eventsColumn = async () => {
    const lines = ok(await kube.kubectl(['get', 'apps'])).trim().split('\n');
    const at = lines[0].indexOf('EVENTS');
    const row = lines.find((l) => l.startsWith('shop '))!;
    return row.slice(at).split(/\s{2,}/)[0];
  };
  const healthy = (status: string, reason: string) =>
    waitFor(`EventDestinationsHealthy=${status} ${reason}`, async () => {
      const c = condition(await kube.getJson('app', 'shop'), 'EventDestinationsHealthy');
      return c?.status === status && c.reason === reason ? c : undefined;
    });
  const kubeEvents = async () => ok(await kube.kubectl(['get', 'events', '--field-selector', 'involvedObject.name=shop', '-o', 'custom-columns=TYPE:.type,REASON:.reason,MESSAGE:.message', '--no-headers']));
  const record = () => env.pool.query(`INSERT INTO event_records (app_id, send_id, kind, body) VALUES ($1, 1, 'notification.created', '{}')`, [appId]);

  it('an App with a destination: Delivering, EVENTS ok', async () => {
    await kube.apply(manifest('Secret', 'shop-events', { type: 'Opaque', stringData: { signingSecret: secret } }));
    await kube.apply(manifest('App', 'shop', { spec: { bundleId: 'dev.herald.shop', events: { destinations: [{ name: 'backend', url: receiver.url, secretRef: { name: 'shop-events', key: 'signingSecret' } }] } } }));
    const c = await healthy('True', 'Delivering');
    expect(c.message).to.equal('1 event destination delivering.');
    appId = (await kube.getJson('app', 'shop')).status.appId;
    expect(await eventsColumn()).to.equal('ok');
  });

  it('a refused batch: retrying (still True); after 5 minutes of failures: False, DestinationFailing, a Warning event, EVENTS failing', async () => {
    await record();
    await record();
    expect(await dispatcher.step()).to.equal(true);
    await waitFor('EVENTS retrying', async () => (await eventsColumn()) === 'retrying: backend');
    expect((await healthy('True', 'Delivering')).message).to.equal('1 event destination delivering; retrying after a failed attempt: backend (HTTP 500).');
    // Five minutes of failed attempts, without the test waiting them out.
    await env.pool.query(`UPDATE event_destinations SET failing_since = clock_timestamp() - interval '6 minutes', attempts = 9 WHERE app_id = $1`, [appId]);
    const c = await healthy('False', 'DestinationFailing');
    expect(c.message).to.match(/^Failing for 5 minutes or more: backend since \S+Z \(9 attempts, last error: HTTP 500; 2 records waiting\)\. Their events wait and are retried with back-off; each goes on from where it stopped once its receiver answers 2xx\. Pushes are not affected\.$/);
    expect(await eventsColumn()).to.equal('failing: backend');
    await waitFor('the Warning event', async () => /^Warning\s+DestinationFailing\s+Failing for 5 minutes or more: backend/m.test(await kubeEvents()));
  });

  it('the receiver answers again: the backlog is delivered, True, a Normal EventDestinationsRecovered event, EVENTS ok', async () => {
    status = 204;
    await env.pool.query(`UPDATE event_destinations SET retry_at = clock_timestamp() WHERE app_id = $1`, [appId]);
    expect(await dispatcher.step()).to.equal(true);
    expect(receiver.accepted.flatMap((d) => d.events.map((e) => e.event.kind))).to.deep.equal(['notification.created', 'notification.created']);
    await healthy('True', 'Delivering');
    expect(await eventsColumn()).to.equal('ok');
    await waitFor('the Normal event', async () => /^Normal\s+EventDestinationsRecovered\s+1 event destination delivering\./m.test(await kubeEvents()));
  });

  it('events retention dropped: False, EventsDropped, with the counts, though nothing is failing', async () => {
    // What retention counts when it takes records the destination never had (test/delivery/retention.test.ts), an hour ago.
    await env.pool.query(`UPDATE event_destinations SET dropped_records = 3, dropped_events = 1200, last_dropped_at = clock_timestamp() - interval '1 hour' WHERE app_id = $1`, [appId]);
    const c = await healthy('False', 'EventsDropped');
    expect(c.message).to.match(/^No destination is failing\. Retention removed events before their destination had them \(older than HERALD_CHUNK_RETENTION_DAYS\): backend 1,200 events in 3 records, last on \S+Z\.$/);
    expect(await eventsColumn()).to.equal('ok');
  });
});
