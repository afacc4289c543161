// Broadcast push through Herald's APNs code against the simulator (issue 29): the channel
// management client (create, read, list, delete on the management port; Apple's refusals as
// answers, never throws) and a broadcast message through both gateway adapters, framed by the
// same code as device pushes and sharing their connection: the simulator logs it once and each
// subscribed device as having received it.
import { expect } from 'chai';
import { createChannelManager, createLeanApnsClient, createNodeApnClient, channelManagementOrigin, type ApnsClient, type ApnsMessage, type ApnsTarget, type ChannelManager } from '../../core/apns/index.js';
import { generateApnsKeyPair } from '../../apns-sim/index.js';
import { TEAM_ID, TOPIC, hexToken, startSimWithKey, type SimFixture } from './helpers.js';

const UPDATE = JSON.stringify({ aps: { timestamp: 1_700_000_000, event: 'update', 'content-state': { score: 1 } } });

describe('core/apns broadcast push against apns-sim', function () {
  let f: SimFixture;
  const managers: ChannelManager[] = [];
  const clients: ApnsClient[] = [];

  const target = (url: string, key = f.key): ApnsTarget => ({ credentials: { kind: 'token', keyP8: key.privateKeyP8, keyId: key.keyId, teamId: TEAM_ID }, topic: TOPIC, environment: 'sandbox', url, ca: f.ca });
  function manager(key = f.key): ChannelManager {
    const m = createChannelManager(target(f.sim.managementUrl, key));
    managers.push(m);
    return m;
  }

  before(async () => {
    f = await startSimWithKey({ maxChannels: 2 });
  });
  after(async () => {
    for (const m of managers) m.close();
    await Promise.all(clients.map((c) => c.close()));
    await f.sim.close();
  });
  afterEach(async () => {
    for (const id of f.sim.channels(TOPIC)) await manager().delete(id);
    f.sim.reset();
  });

  it("Apple's management host per environment, unless HERALD_APNS_BROADCAST_URL names one", () => {
    expect(channelManagementOrigin({ environment: 'sandbox' })).to.equal('https://api-manage-broadcast.sandbox.push.apple.com:2195');
    expect(channelManagementOrigin({ environment: 'production' })).to.equal('https://api-manage-broadcast.push.apple.com:2196');
    expect(channelManagementOrigin({ environment: 'production', url: 'https://127.0.0.1:2199/x' })).to.equal('https://127.0.0.1:2199');
  });

  describe('channel management', () => {
    it('creates a channel (its id), reads its policy, lists it, deletes it; a deleted one is BadChannelId', async () => {
      const m = manager();
      const created = await m.create(1);
      expect(created.status).to.equal(201);
      expect(created.channelId).to.be.a('string');
      expect(await m.read(created.channelId!)).to.deep.equal({ status: 200, policy: 1 });
      expect(await m.list()).to.deep.equal({ status: 200, channels: [created.channelId] });
      expect(await m.delete(created.channelId!)).to.deep.equal({ status: 204, reason: undefined });
      expect(await m.read(created.channelId!)).to.deep.equal({ status: 400, reason: 'BadChannelId' });
    });

    it("answers Apple's refusals: the channel limit (2 here) and a key the simulator does not know", async () => {
      const m = manager();
      expect((await m.create(0)).status).to.equal(201);
      expect((await m.create(0)).status).to.equal(201);
      expect(await m.create(0)).to.deep.equal({ status: 400, reason: 'CannotCreateChannelConfig' });
      expect(await manager(generateApnsKeyPair()).create(0)).to.deep.equal({ status: 403, reason: 'InvalidProviderToken' });
    });

    it('never sends a channel id HTTP/2 cannot carry (Unframeable, as the transport), and answers status 0 when no host answers', async () => {
      expect(await manager().read('abc\n')).to.deep.equal({ status: 0, reason: 'Unframeable' });
      const nowhere = createChannelManager(target('https://127.0.0.1:1'));
      managers.push(nowhere);
      expect((await nowhere.create(0)).status).to.equal(0);
    });
  });

  for (const [adapter, createApnsClient] of [['lean transport', createLeanApnsClient], ['@parse/node-apn adapter', createNodeApnClient]] as const) {
    describe(`a broadcast through the ${adapter}`, () => {
      it('goes once to its channel, beside device pushes of the same batch, and reaches each subscribed device', async () => {
        const channelId = (await manager().create(0)).channelId!;
        f.sim.subscribe(channelId, hexToken(1));
        f.sim.subscribe(channelId, hexToken(2));
        const client = createApnsClient(target(f.sim.url));
        clients.push(client);
        const broadcast: ApnsMessage = { token: '', channelId, payload: UPDATE, pushType: 'liveactivity', priority: 10, expiration: 0 };
        const device: ApnsMessage = { token: hexToken(3), payload: UPDATE, pushType: 'liveactivity', priority: 10 };
        const results = await client.send([device, broadcast, { ...device, token: hexToken(4) }]);
        expect(results.map((r) => r.status)).to.deep.equal([200, 200, 200]);
        const log = f.sim.deliveries(undefined, channelId);
        const request = log.filter((d) => d.broadcast);
        expect(request).to.have.length(1);
        expect(request[0].headers).to.include({ 'apns-channel-id': channelId, 'apns-push-type': 'liveactivity', 'apns-priority': '10', 'apns-expiration': '0' });
        expect(request[0].headers).to.not.have.property('apns-topic');
        expect(results[1].apnsId).to.equal(request[0].apnsId);
        expect(log.filter((d) => !d.broadcast).map((d) => d.token).sort()).to.deep.equal([hexToken(1), hexToken(2)]);
        expect(f.sim.deliveries(hexToken(3))[0].headers['apns-topic']).to.equal(`${TOPIC}.push-type.liveactivity`);
        expect(f.sim.stats().requests).to.equal(3);
      });

      it("answers Apple's refusal of an unknown channel (400 BadChannelId) and never sends a channel id HTTP/2 cannot carry", async () => {
        const client = createApnsClient(target(f.sim.url));
        clients.push(client);
        const [unknown, unframeable] = await client.send([
          { token: '', channelId: 'AAAAAAAAAAAAAAAAAAAAAA==', payload: UPDATE, pushType: 'liveactivity' },
          { token: '', channelId: 'a b ', payload: UPDATE, pushType: 'liveactivity' },
        ]);
        expect([unknown.status, unknown.reason]).to.deep.equal([400, 'BadChannelId']);
        expect(unframeable).to.deep.include({ status: 0, reason: 'Unframeable', local: true });
        expect(f.sim.stats().requests).to.equal(1);
      });
    });
  }
});
