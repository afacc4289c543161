// The chart's part of issue 39 point 8: the NetworkPolicy lets the senders reach Google's OAuth
// (the service accounts' token_uri) and FCM on 443 (networkPolicy.egress.fcm*: any public address
// by default, Google's ranges being wide; narrowed, moved to an in-cluster simulator, or given to
// other roles by value), the proxy replacing it as it replaces Apple; and fcm.url / fcm.caSecret
// give every role HERALD_FCM_URL and HERALD_FCM_CA_FILE with the CA mounted where it points, and
// fcm.connections HERALD_FCM_CONNECTIONS (1-64, core/config.ts).
import { join } from 'node:path';
import { expect } from 'chai';
import { chartDir, find, valuesDir, type Manifest, useHelm } from './helm.js';

const minimal = join(valuesDir, 'minimal.yaml');
const NS = 'herald';
const ROLES = ['api', 'sender', 'controller'];
const PRIVATE = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'];

/** The egress rules of a role's NetworkPolicy that reach Google: those whose ipBlocks except ranges or name fcmCIDRs. */
const googleRules = (ms: Manifest[], role: string, cidrs = ['0.0.0.0/0']): any[] =>
  find(ms, 'NetworkPolicy', `herald-${role}`).spec.egress.filter((rule: any) => rule.to?.some((t: any) => cidrs.includes(t.ipBlock?.cidr)));
const configMap = (ms: Manifest[]) => find(ms, 'ConfigMap', 'herald-config').data ?? {};
const podOf = (ms: Manifest[], role: string) => find(ms, 'Deployment', `herald-${role}`).spec.template.spec;

describe('charts/herald: Google OAuth and FCM egress, the FCM CA (issue 39)', function () {
  const helm = useHelm();
  const render = (...set: string[]) => helm().template(['-n', NS, '-f', minimal, ...set.flatMap((s) => ['--set', s])]);

  it('by default: the senders reach any public address on 443 (Google OAuth and FCM), no private range; api and controller do not', async () => {
    const ms = await render('networkPolicy.enabled=true');
    expect(googleRules(ms, 'sender')).to.deep.equal([{ ports: [{ port: 443 }], to: [{ ipBlock: { cidr: '0.0.0.0/0', except: PRIVATE } }] }]);
    expect(googleRules(ms, 'api')).to.deep.equal([]);
    expect(googleRules(ms, 'controller')).to.deep.equal([]);
  });

  it("narrowed to Google's ranges, another port and role (an in-cluster fcm-sim), or none at all", async () => {
    const narrowed = await render('networkPolicy.enabled=true', 'networkPolicy.egress.fcmCIDRs={142.250.0.0/15,172.217.0.0/16}', 'networkPolicy.egress.fcmExceptCIDRs=null');
    expect(googleRules(narrowed, 'sender', ['142.250.0.0/15'])).to.deep.equal([{ ports: [{ port: 443 }], to: [{ ipBlock: { cidr: '142.250.0.0/15' } }, { ipBlock: { cidr: '172.217.0.0/16' } }] }]);
    const sim = await render('networkPolicy.enabled=true', 'networkPolicy.egress.fcmCIDRs={10.42.0.0/16}', 'networkPolicy.egress.fcmExceptCIDRs=null', 'networkPolicy.egress.fcmPorts={4443}', 'networkPolicy.egress.fcmRoles={sender,api}');
    for (const role of ['sender', 'api']) expect(googleRules(sim, role, ['10.42.0.0/16']), role).to.deep.equal([{ ports: [{ port: 4443 }], to: [{ ipBlock: { cidr: '10.42.0.0/16' } }] }]);
    expect(googleRules(sim, 'controller', ['10.42.0.0/16'])).to.deep.equal([]);
    const none = await render('networkPolicy.enabled=true', 'networkPolicy.egress.fcmCIDRs=null');
    expect(googleRules(none, 'sender')).to.deep.equal([]);
  });

  it('with a proxy: no way to Google but the proxy', async () => {
    const ms = await render('networkPolicy.enabled=true', 'proxy.https=http://proxy.egress.svc:3128');
    for (const role of ROLES) expect(googleRules(ms, role), role).to.deep.equal([]);
  });

  it('sets neither HERALD_FCM_URL nor HERALD_FCM_CA_FILE by default, and mounts nothing; HERALD_FCM_CONNECTIONS 4, or fcm.connections', async () => {
    const ms = await render();
    expect(configMap(ms)).to.not.have.any.keys('HERALD_FCM_URL', 'HERALD_FCM_CA_FILE');
    expect(configMap(ms).HERALD_FCM_CONNECTIONS).to.equal('4');
    expect(configMap(await render('fcm.connections=64')).HERALD_FCM_CONNECTIONS).to.equal('64');
    for (const role of ROLES) expect(podOf(ms, role).volumes.map((v: any) => v.name), role).to.not.include('fcm-ca');
  });

  it('fcm.url and fcm.caSecret (a simulator): HERALD_FCM_URL, and the CA mounted in every role where HERALD_FCM_CA_FILE points', async () => {
    const ms = await render('fcm.url=https://fcm-sim.herald.svc:4443', 'fcm.caSecret.name=fcm-sim-ca', 'fcm.caSecret.key=ca.crt');
    expect(configMap(ms)).to.include({ HERALD_FCM_URL: 'https://fcm-sim.herald.svc:4443', HERALD_FCM_CA_FILE: '/etc/herald/fcm-ca/ca.pem' });
    for (const role of ROLES) {
      const pod = podOf(ms, role);
      expect(pod.volumes.find((v: any) => v.name === 'fcm-ca'), role).to.deep.equal({ name: 'fcm-ca', secret: { secretName: 'fcm-sim-ca', items: [{ key: 'ca.crt', path: 'ca.pem' }] } });
      expect(pod.containers[0].volumeMounts.find((m: any) => m.name === 'fcm-ca'), role).to.deep.equal({ name: 'fcm-ca', mountPath: '/etc/herald/fcm-ca', readOnly: true });
    }
  });

  it('values.schema.json refuses an http fcm.url, a CIDR that is not one, port 0 and an unknown role', async () => {
    for (const [set, field] of [
      ['fcm.url=http://fcm.googleapis.com', "at '/fcm/url'"],
      ['fcm.connections=0', "at '/fcm/connections'"],
      ['fcm.connections=65', "at '/fcm/connections'"],
      ['networkPolicy.egress.fcmCIDRs={google}', "at '/networkPolicy/egress/fcmCIDRs/0'"],
      ['networkPolicy.egress.fcmPorts={0}', "at '/networkPolicy/egress/fcmPorts/0'"],
      ['networkPolicy.egress.fcmRoles={worker}', "at '/networkPolicy/egress/fcmRoles/0'"],
    ]) {
      const result = await helm().run(['template', 'herald', chartDir, '-f', minimal, '--set', set]);
      expect(result.code, set).to.not.equal(0);
      expect(result.stderr, set).to.include("values don't meet the specifications of the schema").and.to.include(field);
    }
  });
});
