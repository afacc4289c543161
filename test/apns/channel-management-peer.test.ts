// The channel management client (core/apns/channel-management.ts) against a node:http2 server
// that answers what Apple should not: a 200 body that is not JSON, a body past MAX_BODY, a 201
// whose apns-channel-id is not of Apple's shape. Each is an answer the caller falls back from
// (status 0 and a reason), never a throw, and nothing Apple sent is passed on unchecked.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { createSecureServer, type Http2SecureServer, type OutgoingHttpHeaders } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { ensureServerCertificate, generateApnsKeyPair } from '../../apns-sim/index.js';
import { createChannelManager, type ChannelManager } from '../../core/apns/index.js';
import { MAX_BODY } from '../../core/apns/channel-management.js';
import { TEAM_ID, TOPIC } from './helpers.js';

const KEY = generateApnsKeyPair();
const GOOD_ID = 'AAAAAAAAAAAAAAAAAAAAAA==';

describe('core/apns channel management against a peer answering what Apple should not', function () {
  this.timeout(30_000);
  let server: Http2SecureServer;
  let url: string;
  let ca: string;
  let reply: { headers: OutgoingHttpHeaders; body: string | Buffer };
  const managers: ChannelManager[] = [];

  before(async () => {
    const certs = await ensureServerCertificate('.herald/test-channel-peer');
    ca = await readFile(certs.caFile, 'utf8');
    server = createSecureServer({ key: await readFile(certs.keyFile), cert: await readFile(certs.certFile) });
    server.on('stream', (stream) => {
      stream.on('error', () => undefined);
      stream.resume();
      stream.on('end', () => {
        stream.respond(reply.headers);
        stream.end(reply.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    for (const m of managers) m.close();
    await new Promise((resolve) => server.close(resolve));
  });

  function manager(): ChannelManager {
    const m = createChannelManager({ credentials: { kind: 'token', keyP8: KEY.privateKeyP8, keyId: KEY.keyId, teamId: TEAM_ID }, topic: TOPIC, environment: 'sandbox', url, ca });
    managers.push(m);
    return m;
  }

  it('a 200 read or list whose body is not JSON: status 0 BadBody', async () => {
    reply = { headers: { ':status': 200 }, body: '{not json' };
    expect(await manager().read(GOOD_ID)).to.deep.equal({ status: 0, reason: 'BadBody' });
    expect(await manager().list()).to.deep.equal({ status: 0, reason: 'BadBody' });
  });

  it('a list naming ids not of the shape: status 0 BadBody; of the shape: passed on', async () => {
    reply = { headers: { ':status': 200 }, body: JSON.stringify({ channels: [GOOD_ID, 'x\r\ny'] }) };
    expect(await manager().list()).to.deep.equal({ status: 0, reason: 'BadBody' });
    reply = { headers: { ':status': 200 }, body: JSON.stringify({ channels: [GOOD_ID] }) };
    expect(await manager().list()).to.deep.equal({ status: 200, channels: [GOOD_ID] });
  });

  it('a refusal whose body is not JSON: its status, no reason', async () => {
    reply = { headers: { ':status': 400 }, body: '<html>' };
    expect(await manager().delete(GOOD_ID)).to.deep.equal({ status: 400, reason: undefined });
  });

  it(`a body of MAX_BODY bytes is read; MAX_BODY + 1 is status 0 BodyTooLarge`, async () => {
    const list = (n: number) => {
      const head = JSON.stringify({ channels: [GOOD_ID] });
      return head.slice(0, -1) + ' '.repeat(n - head.length) + '}';
    };
    reply = { headers: { ':status': 200 }, body: list(MAX_BODY) };
    expect(Buffer.byteLength(reply.body)).to.equal(MAX_BODY);
    expect(await manager().list()).to.deep.equal({ status: 200, channels: [GOOD_ID] });
    reply = { headers: { ':status': 200 }, body: list(MAX_BODY + 1) };
    expect(await manager().list()).to.deep.equal({ status: 0, reason: 'BodyTooLarge' });
  });

  const ids: Array<[string, string, { status: number; reason?: string; channelId?: string }]> = [
    ['of the shape (24 characters, base64 of 16 bytes)', GOOD_ID, { status: 201, channelId: GOOD_ID }],
    ['one character longer', 'AAAAAAAAAAAAAAAAAAAAAAA==', { status: 0, reason: 'BadChannelId' }],
    ['one character shorter', 'AAAAAAAAAAAAAAAAAAAAA==', { status: 0, reason: 'BadChannelId' }],
    ['long (4,000 characters)', 'A'.repeat(4000), { status: 0, reason: 'BadChannelId' }],
    ['with a quote and a brace (it goes into a payload)', 'AAAAAAAAAAAAAAAAAAA"}==', { status: 0, reason: 'BadChannelId' }],
  ];
  for (const [what, id, expected] of ids) {
    it(`a 201 whose apns-channel-id is ${what}: ${expected.status} ${expected.reason ?? expected.channelId}`, async () => {
      reply = { headers: { ':status': 201, 'apns-channel-id': id }, body: '' };
      expect(await manager().create(1)).to.deep.equal(expected);
    });
  }
});
