// Event destinations in the App resource (issue 28): the CRD's schema refuses an unknown kind or a
// destination without its secretRef; the controller reads the signing secret from the named
// Secret, stores the destinations (EventsReady=True), reports a bad secret as EventsReady=False
// with a Warning event and no secret in it, and follows a Secret's change.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { condition, manifest, ok, startTestController, useControlPlane, waitFor } from './harness.js';
import type { RunningController } from '../../controller/index.js';

const whsec = () => `whsec_${randomBytes(32).toString('base64')}`;

describe('App controller: event destinations (real kube-apiserver, kubectl)', function () {
  this.timeout(120_000);
  let controller: RunningController;
  after(async () => {
    await controller?.stop();
  });
  const env = useTestEnv();
  const kube = useControlPlane();

  before(async () => {
    controller = await startTestController(env, kube.cp.kubeconfig, { eventHttpHosts: ['receiver.events.svc'] });
  });

  const secret = (name: string, stringData: Record<string, string>) => manifest('Secret', name, { type: 'Opaque', stringData });
  const app = (name: string, spec: Record<string, unknown>) => manifest('App', name, { spec });
  const eventsCondition = (name: string, status: string, reason?: string) =>
    waitFor(`${name} EventsReady=${status}`, async () => {
      const obj = await kube.getJson('app', name);
      const c = condition(obj, 'EventsReady');
      return c?.status === status && (!reason || c.reason === reason) && c.observedGeneration === obj.metadata.generation ? obj : undefined;
    });
  const stored = async (appId: string) => (await env.pool.query('SELECT name, url, kinds FROM event_destinations WHERE app_id = $1 ORDER BY name', [appId])).rows;

  it('the schema refuses an unknown kind, a missing secretRef and a name used twice', async () => {
    const bad = async (destinations: unknown[]) => (await kube.kubectl(['apply', '-f', '-'], app('refused', { bundleId: 'dev.herald.refused', events: { destinations } }))).stderr;
    expect(await bad([{ name: 'a', url: 'https://x.example.com/', kinds: ['message.push.opened'], secretRef: { name: 's', key: 'k' } }])).to.match(/kinds\[0\]: Unsupported value: "message.push.opened"/);
    expect(await bad([{ name: 'a', url: 'https://x.example.com/' }])).to.match(/secretRef: Required value/);
    expect(await bad([{ name: 'a', url: 'https://x.example.com/', secretRef: { name: 's', key: 'k' } }, { name: 'a', url: 'https://y.example.com/', secretRef: { name: 's', key: 'k' } }])).to.match(/Duplicate value/);
    expect(await bad([{ name: 'a', url: 'ftp://x.example.com/', secretRef: { name: 's', key: 'k' } }])).to.contain('url must be an https URL');
  });

  it('stores the destinations with the secret from the Secret: EventsReady=True', async () => {
    await kube.apply(secret('shop-events', { signingSecret: whsec() }));
    await kube.apply(app('shop', {
      bundleId: 'dev.herald.shop',
      events: { destinations: [
        { name: 'backend', url: 'https://hooks.example.com/herald', kinds: ['message.push.failed'], secretRef: { name: 'shop-events', key: 'signingSecret' } },
        { name: 'in-cluster', url: 'http://receiver.events.svc:8080/in', secretRef: { name: 'shop-events', key: 'signingSecret' } },
      ] },
    }));
    const obj = await eventsCondition('shop', 'True', 'DestinationsApplied');
    expect(condition(obj, 'EventsReady')!.message).to.equal('2 event destinations applied.');
    expect(await stored(obj.status.appId)).to.deep.equal([
      { name: 'backend', url: 'https://hooks.example.com/herald', kinds: ['message.push.failed'] },
      { name: 'in-cluster', url: 'http://receiver.events.svc:8080/in', kinds: null },
    ]);
  });

  it('a Secret that is not whsec_: EventsReady=False with a Warning, the value nowhere; fixed when the Secret is', async () => {
    await kube.apply(secret('shop-events', { signingSecret: 'hunter2-hunter2-hunter2' }));
    const obj = await eventsCondition('shop', 'False', 'SecretInvalid');
    expect(condition(obj, 'EventsReady')!.message).to.equal('Destination backend: signingSecret in Secret shop-events must be a Standard Webhooks secret, whsec_ then the base64 of 24-64 bytes. The destinations stay as they were; pushes are not affected.');
    const events = ok(await kube.kubectl(['get', 'events', '--field-selector', 'involvedObject.name=shop', '-o', 'custom-columns=REASON:.reason,MESSAGE:.message', '--no-headers']));
    expect(events).to.contain('SecretInvalid');
    expect(events + JSON.stringify(obj)).not.to.contain('hunter2');
    expect(await stored(obj.status.appId)).to.have.length(2); // kept
    await kube.apply(secret('shop-events', { signingSecret: whsec() }));
    await eventsCondition('shop', 'True', 'DestinationsApplied');
  });

  it('plain http to a host the operator did not list: EventsReady=False naming HERALD_EVENT_HTTP_HOSTS', async () => {
    ok(await kube.kubectl(['patch', 'app', 'shop', '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/events/destinations/1/url', value: 'http://other.events.svc/in' }])]));
    const obj = await eventsCondition('shop', 'False', 'DestinationRefused');
    expect(condition(obj, 'EventsReady')!.message).to.contain('is plain http: use https, or ask the operator to list other.events.svc in HERALD_EVENT_HTTP_HOSTS');
  });
});
