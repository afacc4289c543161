// FCM and the token endpoint through the egress proxy (HTTPS_PROXY, core/net/dialer.ts) like APNs:
// both reached by a name only the proxy resolves (apns.herald.test, which the simulators'
// certificate names), so a delivered message proves the proxy carried both connections.
import { expect } from 'chai';
import { createDialer, parseProxyUrl } from '../../core/net/index.js';
import { createFcmClient, FcmAccessTokens, type FcmClient } from '../../core/fcm/index.js';
import { startFcmSim, type FcmSim } from '../../fcm-sim/index.js';
import { ConnectProxy } from '../support/connect-proxy.js';
import { makeServiceAccount, messageBody, simCa } from './helpers.js';

describe('FCM through the egress proxy', function () {
  this.timeout(30_000);
  const sa = makeServiceAccount('herald-proxy');
  let sim: FcmSim;
  let proxy: ConnectProxy;
  let client: FcmClient | undefined;

  before(async () => {
    sim = await startFcmSim({ accounts: [{ clientEmail: sa.account.clientEmail, projectId: sa.account.projectId, publicKey: sa.publicKey }] });
    proxy = await ConnectProxy.start({ hosts: { 'apns.herald.test': '127.0.0.1' } });
  });
  after(async () => {
    await client?.close();
    await proxy?.down();
    await sim?.close();
  });

  it('mints the token and sends the message through tunnels to a name only the proxy resolves', async () => {
    const dialer = createDialer({ proxy: parseProxyUrl(proxy.url()) });
    const ca = await simCa(sim);
    const named = (url: string) => url.replace('127.0.0.1', 'apns.herald.test');
    const tokens = new FcmAccessTokens({ ...sa.account, tokenUri: named(sim.tokenUri) }, { ca, dialer });
    client = createFcmClient({ projectId: sa.account.projectId, url: named(sim.url), ca, tokens }, { dialer, connections: 1 });
    const [r] = await client.send([{ token: 'via-proxy', body: messageBody('via-proxy') }]);
    expect(r.status).to.equal(200);
    expect(sim.deliveries('via-proxy')).to.have.length(1);
    const targets = proxy.tunnels.filter((t) => t.status === 200).map((t) => t.target);
    expect(targets).to.include.members([`apns.herald.test:${new URL(sim.tokenUri).port}`, `apns.herald.test:${new URL(sim.url).port}`]);
  });
});
