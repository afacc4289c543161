// The lean client against a peer that breaks RFC 9113 (test/apns/raw-peer.ts): it answers with
// GOAWAY and the RFC's error code, drops the connection, and retries the requests on a new one,
// where they are answered: nothing counted twice, nothing failed because of the peer's error.
// Also: a connection is retired before its stream ids run out (an injectable limit), and an idle
// connection is closed.
import { expect } from 'chai';
import { createLeanApnsClient, type ApnsClient, type ApnsCredentials } from '../../core/apns/index.js';
import { ErrorCode, Flag, FrameType } from '../../core/apns/frames.js';
import { generateApnsKeyPair } from '../../apns-sim/index.js';
import { H2Connection, MAX_CONTINUATIONS } from '../../core/apns/connection.js';
import { Batch, Pending } from '../../core/apns/pending.js';
import { pino } from 'pino';
import { frame, startRawPeer, type RawPeer, type Script } from './raw-peer.js';
import { PAYLOAD, TEAM_ID, TOPIC, hexToken } from './helpers.js';
import { waitFor } from '../support/wait.js';

const KEY = generateApnsKeyPair();
const AUTH: ApnsCredentials = { kind: 'token', keyP8: KEY.privateKeyP8, keyId: KEY.keyId, teamId: TEAM_ID };

describe('lean APNs transport: a peer that breaks the protocol', function () {
  this.timeout(30_000);
  let peer: RawPeer | undefined;
  let client: ApnsClient | undefined;
  afterEach(async () => {
    await client?.close();
    await peer?.close();
  });
  const lean = (p: RawPeer, extra = {}) => (client = createLeanApnsClient({ credentials: AUTH, topic: TOPIC, environment: 'sandbox', url: p.url, ca: p.ca }, { connections: 1, requestTimeoutMs: 5000, ...extra }));
  const msgs = (n: number) => Array.from({ length: n }, (_, i) => ({ token: hexToken(i), payload: PAYLOAD }));

  const misbehaving: [string, Script, number][] = [
    ['a CONTINUATION flood (1,000 empty frames)', (id) => [frame(FrameType.HEADERS, 0, id, Buffer.from([0x88])), ...Array.from({ length: 1000 }, () => frame(FrameType.CONTINUATION, 0, id))], ErrorCode.ENHANCE_YOUR_CALM],
    ['a 2-byte RST_STREAM', (id) => [frame(FrameType.RST_STREAM, 0, id, Buffer.alloc(2))], ErrorCode.FRAME_SIZE_ERROR],
    ['a 3-byte PING', () => [frame(FrameType.PING, 0, 0, Buffer.alloc(3))], ErrorCode.FRAME_SIZE_ERROR],
    ['a 4-byte GOAWAY', () => [frame(FrameType.GOAWAY, 0, 0, Buffer.alloc(4))], ErrorCode.FRAME_SIZE_ERROR],
    ['DATA on stream 0', () => [frame(FrameType.DATA, 0, 0, Buffer.alloc(1))], ErrorCode.PROTOCOL_ERROR],
    ['SETTINGS on a stream', (id) => [frame(FrameType.SETTINGS, 0, id)], ErrorCode.PROTOCOL_ERROR],
    ['a PADDED DATA frame with no payload', (id) => [frame(FrameType.DATA, Flag.PADDED, id)], ErrorCode.FRAME_SIZE_ERROR],
  ];
  for (const [name, script, code] of misbehaving) {
    it(`${name}: GOAWAY ${ErrorCode[code]}, then the requests are answered on a new connection`, async () => {
      peer = await startRawPeer([script]);
      const results = await lean(peer).send(msgs(3));
      expect(results.map((r) => r.status)).to.deep.equal([200, 200, 200]);
      expect(peer.goaways[0]).to.equal(code);
      expect(peer.connections).to.equal(2);
      expect(peer.answered.get(1)).to.equal(3);
    });
  }

  it(`caps a header block at ${MAX_CONTINUATIONS} CONTINUATION frames`, async () => {
    const just = (id: number) => [frame(FrameType.HEADERS, Flag.END_STREAM, id, Buffer.from([0x88])), ...Array.from({ length: MAX_CONTINUATIONS - 1 }, () => frame(FrameType.CONTINUATION, 0, id)), frame(FrameType.CONTINUATION, Flag.END_HEADERS, id)];
    peer = await startRawPeer([just]);
    const results = await lean(peer).send(msgs(1));
    expect(results[0].status).to.equal(200);
    expect(peer.connections, 'within the cap: no new connection').to.equal(1);
  });

  it('retires a connection before its stream ids run out, losing and repeating nothing', async () => {
    peer = await startRawPeer();
    const c = lean(peer, { lastStreamId: 7 }); // four streams: 1, 3, 5, 7
    for (let round = 0; round < 3; round++) {
      const results = await c.send(msgs(4));
      expect(results.map((r) => r.status)).to.deep.equal([200, 200, 200, 200]);
    }
    expect(peer.connections).to.equal(3);
    expect([...peer.answered.values()].reduce((a, b) => a + b, 0), 'each request answered once').to.equal(12);
  });

  it('stops opening streams while the socket cannot take more (write backpressure)', async () => {
    peer = await startRawPeer([], { stall: true });
    const changed: H2Connection[] = [];
    const conn = new H2Connection(
      { id: 1, host: '127.0.0.1', port: Number(new URL(peer.url).port), tls: { ca: peer.ca }, maxStreams: 100_000, timeoutMs: 20_000, logger: pino({ level: 'silent' }) },
      { answered: () => undefined, failed: () => undefined, unprocessed: () => undefined, changed: (c) => changed.push(c) },
    );
    try {
      await waitFor('connected', () => conn.state === 'ready', 10_000, 20);
      const big = Buffer.alloc(4000, 0x61);
      const settled = new Batch(4000, () => undefined);
      const batch = Array.from({ length: 4000 }, (_, i) => new Pending({ token: hexToken(i), payload: '' }, big, settled, i));
      conn.start(batch, () => Buffer.alloc(0));
      expect(conn.spare(), 'a congested connection offers no stream').to.equal(0);
    } finally {
      conn.destroy();
    }
  });

  it('closes an idle connection (GOAWAY NO_ERROR), and the next send opens another', async () => {
    peer = await startRawPeer();
    const c = lean(peer, { idleCloseMs: 200 });
    expect((await c.send(msgs(1)))[0].status).to.equal(200);
    await waitFor('the idle connection closed', () => peer!.closed === 1, 10_000, 20);
    expect(peer.goaways).to.deep.equal([ErrorCode.NO_ERROR]);
    expect((await c.send(msgs(1)))[0].status).to.equal(200);
    expect(peer.connections).to.equal(2);
  });
});
