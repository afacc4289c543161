// Tokens and header values of every length the api accepts, and longer, through both adapters to
// the simulator (a node:http2 server: nghttp2 decodes our HPACK). Until issue 26 the lean
// transport refused a token over 100 characters as BadDeviceToken (the install was unsubscribed),
// and wrote lengths from 127 bytes on as one byte (the server answered GOAWAY COMPRESSION_ERROR).
// A value HTTP/2 cannot carry is refused before sending, as our bug: `Unframeable`, `local`,
// logged with its reason, never Apple's BadDeviceToken.
import { expect } from 'chai';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { createLeanApnsClient, createNodeApnClient, type ApnsClient, type ApnsMessage } from '../../core/apns/index.js';
import { MAX_FIELD_VALUE_BYTES } from '../../core/apns/field-values.js';
import { DEVICE_TOKEN_MAX_HEX, DEVICE_TOKEN_MIN_HEX } from '../../core/formats/device-token.js';
import { PAYLOAD, TEAM_ID, TOPIC, startSimWithKey, type SimFixture } from './helpers.js';

/** A hex token of `digits` digits, distinct per n. */
const hexOf = (digits: number, n: number) => (n.toString(16) + 'f').padEnd(digits, '0').slice(0, digits);

const FACTORIES = [
  { adapter: 'lean transport', create: createLeanApnsClient },
  { adapter: '@parse/node-apn adapter', create: createNodeApnClient },
];

describe('core/apns: tokens and header values of every length, to the simulator', function () {
  this.timeout(30_000);
  let f: SimFixture;
  const clients: ApnsClient[] = [];
  let logged: Array<Record<string, unknown>> = [];

  before(async () => {
    f = await startSimWithKey();
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await f.sim.close();
  });
  beforeEach(() => {
    f.sim.reset();
    logged = [];
  });

  /** A client of one connection on the simulator whose log lines land in `logged`. */
  function client(create: (...args: Parameters<typeof createLeanApnsClient>) => ApnsClient = createLeanApnsClient): ApnsClient {
    const logger = pino({ level: 'info' }, new Writable({ write: (chunk, _enc, done) => (logged.push(JSON.parse(String(chunk))), done()) }));
    const c = create({ credentials: { kind: 'token', keyP8: f.key.privateKeyP8, keyId: f.key.keyId, teamId: TEAM_ID }, topic: TOPIC, environment: 'sandbox', url: f.sim.url, ca: f.ca }, { logger, connections: 1 });
    clients.push(c);
    return c;
  }

  for (const { adapter, create } of FACTORIES) {

    it(`${adapter}: tokens of ${DEVICE_TOKEN_MIN_HEX}, 64, 128 and ${DEVICE_TOKEN_MAX_HEX} hex digits are delivered, each as given`, async () => {
      const tokens = [DEVICE_TOKEN_MIN_HEX, 64, 126, 127, 128, 129, DEVICE_TOKEN_MAX_HEX].map((n, i) => hexOf(n, i + 1));
      const results = await client(create).send(tokens.map((token, i) => ({ token, payload: PAYLOAD, apnsId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, collapseId: 'c'.repeat(64), pushType: 'alert' })));
      expect(results.map((r) => `${r.status}${r.reason ? ` ${r.reason}` : ''}`)).to.deep.equal(tokens.map(() => '200'));
      for (const token of tokens) {
        const got = f.sim.deliveries(token);
        expect(got, `${token.length} digits`).to.have.length(1);
        expect(got[0]).to.include({ token, status: 200 });
        expect(got[0].headers['apns-collapse-id']).to.equal('c'.repeat(64));
      }
    });

    it(`${adapter}: a value HTTP/2 cannot carry is Unframeable, local, logged; never sent, never BadDeviceToken; the batch goes on`, async () => {
      const broken: ApnsMessage[] = [
        { token: `${'ab'.repeat(32)}\n`, payload: PAYLOAD },
        { token: 'ab'.repeat(32), payload: PAYLOAD, collapseId: ' leading-space' },
        { token: 'a'.repeat(MAX_FIELD_VALUE_BYTES + 1), payload: PAYLOAD },
      ];
      const good = [hexOf(64, 90), hexOf(200, 91)];
      const results = await client(create).send([{ token: good[0], payload: PAYLOAD }, ...broken, { token: good[1], payload: PAYLOAD }]);
      expect(results.map((r) => ({ status: r.status, reason: r.reason, local: r.local }))).to.deep.equal([
        { status: 200, reason: undefined, local: undefined },
        ...broken.map(() => ({ status: 0, reason: 'Unframeable', local: true })),
        { status: 200, reason: undefined, local: undefined },
      ]);
      expect(f.sim.deliveries().map((d) => d.token).sort()).to.deep.equal([...good].sort());
      const refusals = logged.filter((l) => l.reason === 'Unframeable');
      expect(refusals.map((l) => l.problem)).to.deep.equal([
        'the token (:path) holds a byte HTTP/2 does not allow there',
        'apns-collapse-id holds a byte HTTP/2 does not allow there',
        `the token (:path) is ${MAX_FIELD_VALUE_BYTES + 1} bytes, over ${MAX_FIELD_VALUE_BYTES}`,
      ]);
      expect(refusals.every((l) => l.level === 50), 'logged as errors').to.equal(true);
    });
  }

  it(`lean transport: values of 127 to ${MAX_FIELD_VALUE_BYTES} bytes reach the server intact, and the connection keeps serving`, async () => {
    const c = client();
    const lengths = [127, 128, 255, 256, 1000, 4000, MAX_FIELD_VALUE_BYTES];
    // Longer than a device token: the simulator answers BadDeviceToken, after reading it whole.
    const results = await c.send([...lengths.map((n, i) => ({ token: hexOf(n, i + 1), payload: PAYLOAD, collapseId: 'k'.repeat(n) })), { token: hexOf(64, 77), payload: PAYLOAD }]);
    expect(results.slice(0, -1).every((r) => r.status === 400 && r.reason !== undefined)).to.equal(true);
    expect(results[results.length - 1]).to.include({ status: 200 });
    for (const [i, n] of lengths.entries()) {
      const got = f.sim.deliveries(hexOf(n, i + 1));
      expect(got, `${n} bytes`).to.have.length(1);
      expect(got[0].headers['apns-collapse-id']).to.equal('k'.repeat(n));
    }
  });

  it(`the simulator takes a token of ${DEVICE_TOKEN_MIN_HEX} to ${DEVICE_TOKEN_MAX_HEX} hex digits, and answers BadDeviceToken to ${DEVICE_TOKEN_MIN_HEX - 1} and ${DEVICE_TOKEN_MAX_HEX + 1}`, async () => {
    const cases: Array<[number, number, string | undefined]> = [
      [DEVICE_TOKEN_MIN_HEX - 1, 400, 'BadDeviceToken'],
      [DEVICE_TOKEN_MIN_HEX, 200, undefined],
      [DEVICE_TOKEN_MAX_HEX, 200, undefined],
      [DEVICE_TOKEN_MAX_HEX + 1, 400, 'BadDeviceToken'],
    ];
    const results = await client().send(cases.map(([n], i) => ({ token: hexOf(n, i + 1), payload: PAYLOAD })));
    expect(results.map((r) => [r.token.length, r.status, r.reason])).to.deep.equal(cases);
  });
});
