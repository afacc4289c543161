// The simulator's broadcast push, driven over HTTP/2 as a provider would: Apple's channel
// management API on its own port (create, read, list, delete; the channel limit) and the
// broadcast send on the gateway's (the channel, the payload's limit, the no-storage expiration
// rule), with the delivery log showing a broadcast once and each subscribed device receiving it.
import { expect } from 'chai';
import { connect, type ClientHttp2Session, type OutgoingHttpHeaders } from 'node:http2';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { startApnsSim, type ApnsSim } from './sim.js';
import { generateApnsKeyPair } from './keys.js';
import { ProviderTokenSigner } from '../core/apns/provider-token.js';

const BUNDLE = 'com.example.stadium';
const TEAM = 'TEAM123456';
const tokenA = 'a1'.repeat(32);
const tokenB = 'b2'.repeat(40);

interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function request(session: ClientHttp2Session, headers: OutgoingHttpHeaders, body?: string | Buffer): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const stream = session.request(headers, { endStream: body === undefined });
    let answer: Record<string, string> = {};
    const chunks: Buffer[] = [];
    stream.on('response', (h) => (answer = Object.fromEntries(Object.entries(h).map(([k, v]) => [k, String(v)]))));
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve({ status: Number(answer[':status']), headers: answer, body: Buffer.concat(chunks).toString('utf8') }));
    stream.on('error', reject);
    if (body !== undefined) stream.end(body);
  });
}

const reasonOf = (reply: Reply): string | undefined => (reply.body ? (JSON.parse(reply.body) as { reason?: string }).reason : undefined);

const update = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ aps: { timestamp: 1_700_000_000, event: 'update', 'content-state': { home: 1, away: 0 }, ...extra } });

describe('simulator: broadcast push (channel management and POST /4/broadcasts)', () => {
  let sim: ApnsSim;
  let gateway: ClientHttp2Session;
  let manage: ClientHttp2Session;
  let authorization: string;

  before(async () => {
    const key = generateApnsKeyPair();
    sim = await startApnsSim({ keys: [{ keyId: key.keyId, teamId: TEAM, publicKey: key.publicKeyPem }], maxChannels: 3 });
    authorization = new ProviderTokenSigner(key.privateKeyP8, key.keyId, TEAM).current().authorization;
    const ca = readFileSync(sim.caFile);
    gateway = connect(sim.url, { ca });
    manage = connect(sim.managementUrl, { ca });
  });
  after(async () => {
    gateway?.close();
    manage?.close();
    await sim?.close();
  });
  afterEach(async () => {
    for (const id of sim.channels(BUNDLE)) await remove(id);
    sim.reset();
  });

  const create = (body: unknown, headers: OutgoingHttpHeaders = {}) =>
    request(manage, { ':method': 'POST', ':path': `/1/apps/${BUNDLE}/channels`, authorization, ...headers }, JSON.stringify(body));
  const read = (id: string) => request(manage, { ':method': 'GET', ':path': `/1/apps/${BUNDLE}/channels`, authorization, 'apns-channel-id': id });
  const remove = (id: string) => request(manage, { ':method': 'DELETE', ':path': `/1/apps/${BUNDLE}/channels`, authorization, 'apns-channel-id': id });
  const list = () => request(manage, { ':method': 'GET', ':path': `/1/apps/${BUNDLE}/all-channels`, authorization });
  async function channel(policy: 0 | 1): Promise<string> {
    const reply = await create({ 'message-storage-policy': policy, 'push-type': 'LiveActivity' });
    expect(reply.status, reply.body).to.equal(201);
    return reply.headers['apns-channel-id'];
  }
  const broadcast = (channelId: string | undefined, body: string, headers: OutgoingHttpHeaders = {}) =>
    request(
      gateway,
      { ':method': 'POST', ':path': `/4/broadcasts/apps/${BUNDLE}`, authorization, 'apns-push-type': 'liveactivity', ...(channelId ? { 'apns-channel-id': channelId } : {}), ...headers },
      body,
    );

  describe('channel management (its own port)', () => {
    it('creates a channel (201, apns-channel-id, the request id echoed), reads it, lists it and deletes it (204)', async () => {
      const requestId = randomUUID();
      const created = await create({ 'message-storage-policy': 1, 'push-type': 'LiveActivity' }, { 'apns-request-id': requestId });
      expect(created.status).to.equal(201);
      expect(created.headers['apns-request-id']).to.equal(requestId);
      const id = created.headers['apns-channel-id'];
      expect(id).to.match(/^[A-Za-z0-9+/]{22}==$/);
      const got = await read(id);
      expect(got.status).to.equal(200);
      expect(JSON.parse(got.body)).to.deep.equal({ 'message-storage-policy': 1, 'push-type': 'LiveActivity' });
      expect(got.headers['apns-request-id']).to.match(/^[0-9a-f-]{36}$/);
      expect(JSON.parse((await list()).body)).to.deep.equal({ channels: [id] });
      const deleted = await remove(id);
      expect(deleted.status).to.equal(204);
      expect(JSON.parse((await list()).body)).to.deep.equal({ channels: [] });
      const again = await read(id);
      expect([again.status, reasonOf(again)]).to.deep.equal([400, 'BadChannelId']);
    });

    it('holds at most the channel limit per bundle id (3 here, Apple 10,000): the 3rd is made, the 4th refused, a deletion frees one', async () => {
      const ids = [await channel(0), await channel(1), await channel(0)];
      const fourth = await create({ 'message-storage-policy': 0, 'push-type': 'LiveActivity' });
      expect([fourth.status, reasonOf(fourth)]).to.deep.equal([400, 'CannotCreateChannelConfig']);
      // Another bundle id has its own count.
      const other = await request(manage, { ':method': 'POST', ':path': '/1/apps/com.example.other/channels', authorization }, JSON.stringify({ 'message-storage-policy': 0, 'push-type': 'LiveActivity' }));
      expect(other.status).to.equal(201);
      await remove(ids[1]);
      expect((await create({ 'message-storage-policy': 0, 'push-type': 'LiveActivity' })).status).to.equal(201);
    });

    const refusals: Array<[string, () => Promise<Reply>, number, string]> = [
      ['no provider token', () => request(manage, { ':method': 'GET', ':path': `/1/apps/${BUNDLE}/all-channels` }), 403, 'MissingProviderToken'],
      ['a storage policy other than 0 or 1', () => create({ 'message-storage-policy': 2, 'push-type': 'LiveActivity' }), 400, 'BadMessageStoragePolicy'],
      ['no storage policy', () => create({ 'push-type': 'LiveActivity' }), 400, 'BadMessageStoragePolicy'],
      ['a push type other than LiveActivity', () => create({ 'message-storage-policy': 0, 'push-type': 'alert' }), 400, 'InvalidPushType'],
      ['a body that is not JSON', () => request(manage, { ':method': 'POST', ':path': `/1/apps/${BUNDLE}/channels`, authorization }, '{'), 400, 'BadPayload'],
      ['a read without apns-channel-id', () => request(manage, { ':method': 'GET', ':path': `/1/apps/${BUNDLE}/channels`, authorization }), 400, 'MissingChannelId'],
      ['a read of an unknown channel', () => read('AAAAAAAAAAAAAAAAAAAAAA=='), 400, 'BadChannelId'],
      ['a malformed request id', () => create({ 'message-storage-policy': 0, 'push-type': 'LiveActivity' }, { 'apns-request-id': 'nope' }), 400, 'BadRequestId'],
      ['another path', () => request(manage, { ':method': 'GET', ':path': `/1/apps/${BUNDLE}/nothing`, authorization }), 404, 'BadPath'],
      ['PUT on channels', () => request(manage, { ':method': 'PUT', ':path': `/1/apps/${BUNDLE}/channels`, authorization }, '{}'), 405, 'MethodNotAllowed'],
    ];
    for (const [what, call, status, reason] of refusals) {
      it(`refuses ${what}: ${status} ${reason}`, async () => {
        const reply = await call();
        expect([reply.status, reasonOf(reply)]).to.deep.equal([status, reason]);
        expect(sim.channels(BUNDLE)).to.deep.equal([]);
      });
    }
  });

  describe('a path with a broken percent-encoding (decodeURIComponent throws)', () => {
    const broken: Array<[string, () => Promise<Reply>]> = [
      ['a broadcast to /4/broadcasts/apps/%E0', () => request(gateway, { ':method': 'POST', ':path': '/4/broadcasts/apps/%E0', authorization, 'apns-push-type': 'liveactivity', 'apns-channel-id': 'AAAAAAAAAAAAAAAAAAAAAA==' }, update())],
      ['a channel creation at /1/apps/%/channels', () => request(manage, { ':method': 'POST', ':path': '/1/apps/%/channels', authorization }, JSON.stringify({ 'message-storage-policy': 0, 'push-type': 'LiveActivity' }))],
      ['a push to /3/device/%E0', () => request(gateway, { ':method': 'POST', ':path': '/3/device/%E0', authorization, 'apns-topic': BUNDLE, 'apns-push-type': 'alert' }, JSON.stringify({ aps: { alert: 'hi' } }))],
    ];
    for (const [what, call] of broken) {
      it(`answers ${what} 404 BadPath, and the simulator answers the next request`, async () => {
        const reply = await call();
        expect([reply.status, reasonOf(reply)]).to.deep.equal([404, 'BadPath']);
        const next = await request(manage, { ':method': 'GET', ':path': `/1/apps/${BUNDLE}/all-channels`, authorization });
        expect(next.status).to.equal(200);
      });
    }
  });

  describe('the broadcast send (the gateway port)', () => {
    it('goes to every device subscribed to the channel: the log holds the request once and one record per device', async () => {
      const id = await channel(0);
      expect(sim.subscribe(id, tokenA)).to.equal(true);
      const joined = await fetch(`${sim.controlUrl}/channels/${encodeURIComponent(id)}/devices`, { method: 'POST', body: JSON.stringify({ token: tokenB }) });
      expect(joined.status).to.equal(200);
      const reply = await broadcast(id, update(), { 'apns-priority': '10', 'apns-expiration': '0' });
      expect(reply.status, reply.body).to.equal(200);
      expect(reply.headers['apns-request-id']).to.match(/^[0-9a-f-]{36}$/);
      const apnsId = reply.headers['apns-id'];
      const log = sim.deliveries(undefined, id);
      expect(log.filter((d) => d.broadcast).map((d) => [d.token, d.status, d.apnsId])).to.deep.equal([['', 200, apnsId]]);
      expect(log.filter((d) => !d.broadcast).map((d) => [d.token, d.apnsId]).sort()).to.deep.equal([[tokenA, apnsId], [tokenB, apnsId]]);
      expect(sim.deliveries(tokenA)[0].payload).to.equal(update());
      expect(sim.stats().requests).to.equal(1);
      const viaControl = (await (await fetch(`${sim.controlUrl}/deliveries?channel=${encodeURIComponent(id)}`)).json()) as { total: number };
      expect(viaControl.total).to.equal(3);
    });

    it('reaches no device of another channel, and a device subscribed later only through the stored message (policy 1)', async () => {
      const stored = await channel(1);
      const other = await channel(0);
      sim.subscribe(other, tokenB);
      const future = String(Math.floor(Date.now() / 1000) + 3600);
      expect((await broadcast(stored, update(), { 'apns-expiration': future })).status).to.equal(200);
      expect(sim.deliveries(tokenB)).to.deep.equal([]);
      sim.subscribe(stored, tokenA);
      expect(sim.deliveries(tokenA).map((d) => d.channelId)).to.deep.equal([stored]);
      // Under policy 0 nothing is kept for a late device.
      expect((await broadcast(other, update())).status).to.equal(200);
      sim.subscribe(other, tokenA);
      expect(sim.deliveries(tokenA, other)).to.deep.equal([]);
    });

    it('takes a payload of 4,096 bytes and refuses 4,097 (413 PayloadTooLarge)', async () => {
      const id = await channel(0);
      const base = update({ 'content-state': { pad: '' } });
      const at = (n: number) => update({ 'content-state': { pad: 'x'.repeat(n - Buffer.byteLength(base)) } });
      expect(Buffer.byteLength(at(4096))).to.equal(4096);
      expect((await broadcast(id, at(4096))).status).to.equal(200);
      const over = await broadcast(id, at(4097));
      expect([over.status, reasonOf(over)]).to.deep.equal([413, 'PayloadTooLarge']);
    });

    it('a no-storage channel takes apns-expiration 0 (or none) only; a most-recent channel takes a later one', async () => {
      const none = await channel(0);
      const recent = await channel(1);
      const later = String(Math.floor(Date.now() / 1000) + 60);
      expect((await broadcast(none, update(), { 'apns-expiration': '0' })).status).to.equal(200);
      expect((await broadcast(none, update())).status).to.equal(200);
      const refused = await broadcast(none, update(), { 'apns-expiration': later });
      expect([refused.status, reasonOf(refused)]).to.deep.equal([400, 'BadExpirationDate']);
      expect((await broadcast(recent, update(), { 'apns-expiration': later })).status).to.equal(200);
    });

    it('refuses a deleted channel: 400 BadChannelId, logged once, delivered to no device', async () => {
      const id = await channel(0);
      sim.subscribe(id, tokenA);
      await remove(id);
      const reply = await broadcast(id, update());
      expect([reply.status, reasonOf(reply)]).to.deep.equal([400, 'BadChannelId']);
      expect(sim.deliveries(tokenA)).to.deep.equal([]);
      expect(sim.deliveries(undefined, id).map((d) => [d.broadcast, d.status])).to.deep.equal([[true, 400]]);
    });

    const refusals: Array<[string, (id: string) => Promise<Reply>, number, string]> = [
      ['no provider token', (id) => request(gateway, { ':method': 'POST', ':path': `/4/broadcasts/apps/${BUNDLE}`, 'apns-push-type': 'liveactivity', 'apns-channel-id': id }, update()), 403, 'MissingProviderToken'],
      ['no apns-channel-id', () => broadcast(undefined, update()), 400, 'MissingChannelId'],
      ['an unknown channel', () => broadcast('AAAAAAAAAAAAAAAAAAAAAA==', update()), 400, 'BadChannelId'],
      ['another push type', (id) => broadcast(id, update(), { 'apns-push-type': 'alert' }), 400, 'InvalidPushType'],
      ['no push type', (id) => request(gateway, { ':method': 'POST', ':path': `/4/broadcasts/apps/${BUNDLE}`, authorization, 'apns-channel-id': id }, update()), 400, 'InvalidPushType'],
      ['priority 1 (Live Activities: 5 or 10)', (id) => broadcast(id, update(), { 'apns-priority': '1' }), 400, 'BadPriority'],
      ['an empty payload', (id) => broadcast(id, ''), 400, 'PayloadEmpty'],
      ['a payload without the timestamp', (id) => broadcast(id, JSON.stringify({ aps: { event: 'update', 'content-state': {} } })), 400, 'BadPayload'],
      ['another bundle id than the channel’s', (id) => request(gateway, { ':method': 'POST', ':path': '/4/broadcasts/apps/com.example.other', authorization, 'apns-push-type': 'liveactivity', 'apns-channel-id': id }, update()), 400, 'BadChannelId'],
      ['GET', (id) => request(gateway, { ':method': 'GET', ':path': `/4/broadcasts/apps/${BUNDLE}`, authorization, 'apns-channel-id': id }), 405, 'MethodNotAllowed'],
    ];
    for (const [what, call, status, reason] of refusals) {
      it(`refuses ${what}: ${status} ${reason}, and no device receives it`, async () => {
        const id = await channel(0);
        sim.subscribe(id, tokenA);
        const reply = await call(id);
        expect([reply.status, reasonOf(reply)]).to.deep.equal([status, reason]);
        expect(sim.deliveries(tokenA)).to.deep.equal([]);
      });
    }

    it('subscribing a device to an unknown channel is a 404 at the control endpoint', async () => {
      const reply = await fetch(`${sim.controlUrl}/channels/nope/devices`, { method: 'POST', body: JSON.stringify({ token: tokenA }) });
      expect(reply.status).to.equal(404);
    });
  });
});
