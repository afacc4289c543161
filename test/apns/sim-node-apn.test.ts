// The simulator driven by @parse/node-apn, unchanged: proves it speaks Apple's provider API.
import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import apn from '@parse/node-apn';
import { generateApnsKeyPair } from '../../apns-sim/index.js';
import { PAYLOAD, TEAM_ID, TOPIC, control, hexToken, nodeApnProvider, note, rawRequest, startSimWithKey, type SimFixture } from './helpers.js';

type Failure = { device: string; status?: number; response?: { reason?: string; timestamp?: number }; error?: Error };

function reasonOf(f: Failure): string | undefined {
  return f.response?.reason ?? f.error?.message;
}

function base64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** A background push as Apple wants it: content-available and nothing shown. */
const SILENT = { aps: { 'content-available': 1 } };

describe('apns-sim with @parse/node-apn', function () {
  let f: SimFixture;
  let provider: apn.Provider;

  before(async function () {
    f = await startSimWithKey({
      rules: [
        { prefix: 'bad', status: 400, reason: 'BadDeviceToken' },
        { prefix: 'bb0e', status: 410, reason: 'Unregistered', timestamp: 1700000000000 },
        { prefix: 'b05e', status: 429, times: 2 },
        { prefix: '5000', status: 503 },
      ],
    });
    provider = nodeApnProvider(f);
  });

  after(async function () {
    await provider.shutdown();
    await f.sim.close();
  });

  beforeEach(function () {
    f.sim.reset();
  });

  it('accepts a token signed by a configured key and answers 200 with the apns-id', async function () {
    const token = hexToken(1);
    const { sent, failed } = await provider.send(note({ id: '123e4567-e89b-12d3-a456-426614174000' }), token);
    expect(failed).to.deep.equal([]);
    expect(sent).to.have.length(1);
    expect(sent[0].device).to.equal(token);
    expect((sent[0] as unknown as Record<string, string>)['apns-id']).to.equal('123e4567-e89b-12d3-a456-426614174000');
  });

  it('answers 403 InvalidProviderToken to a JWT signed by another key with the same key id', async function () {
    const impostor = generateApnsKeyPair(f.key.keyId);
    const other = nodeApnProvider({ ...f, key: impostor });
    try {
      const { sent, failed } = await other.send(note(), hexToken(2));
      expect(sent).to.have.length(0);
      expect(failed[0].status).to.equal(403);
      expect(reasonOf(failed[0] as Failure)).to.equal('InvalidProviderToken');
    } finally {
      await other.shutdown();
    }
  });

  it('answers 403 ExpiredProviderToken to a token whose iat is over an hour old', async function () {
    const other = nodeApnProvider(f);
    try {
      // A genuinely signed token, issued 61 minutes ago; node-apn is told it is fresh so it sends it.
      const { createPrivateKey, sign } = await import('node:crypto');
      const iat = Math.floor(Date.now() / 1000) - 61 * 60;
      const head = `${base64url({ alg: 'ES256', kid: f.key.keyId })}.${base64url({ iss: TEAM_ID, iat })}`;
      const sig = sign('sha256', Buffer.from(head), { key: createPrivateKey(f.key.privateKeyP8), dsaEncoding: 'ieee-p1363' });
      const token = (other as unknown as { client: { config: { token: { current: string; iat: number } } } }).client.config.token;
      token.current = `${head}.${sig.toString('base64url')}`;
      token.iat = Math.floor(Date.now() / 1000);
      const { failed } = await other.send(note(), hexToken(3));
      expect(failed[0].status).to.equal(403);
      expect(reasonOf(failed[0] as Failure)).to.equal('ExpiredProviderToken');
      expect(f.sim.stats().byReason).to.deep.equal({ ExpiredProviderToken: 1 });
    } finally {
      await other.shutdown();
    }
  });

  it('answers 413 PayloadTooLarge to a 4097-byte payload and accepts 4096 bytes', async function () {
    const sized = (bytes: number): object => {
      const skeleton = JSON.stringify({ aps: { alert: '' } });
      return { aps: { alert: 'x'.repeat(bytes - skeleton.length) } };
    };
    const big = note();
    big.rawPayload = sized(4097);
    expect(Buffer.byteLength((big as unknown as { compile(): string }).compile())).to.equal(4097);
    const fits = note();
    fits.rawPayload = sized(4096);
    const tooLarge = await provider.send(big, hexToken(4));
    expect(tooLarge.failed[0].status).to.equal(413);
    expect(reasonOf(tooLarge.failed[0] as Failure)).to.equal('PayloadTooLarge');
    const ok = await provider.send(fits, hexToken(5));
    expect(ok.sent).to.have.length(1);
  });

  it('answers by token-prefix rules: 400, 410 with timestamp, 503', async function () {
    const { sent, failed } = await provider.send(note(), ['bad01', 'bb0e01', '500001', hexToken(6)]);
    expect(sent.map((s) => s.device)).to.deep.equal([hexToken(6)]);
    const byDevice = Object.fromEntries((failed as Failure[]).map((x) => [x.device, x]));
    expect(byDevice.bad01.status).to.equal(400);
    expect(byDevice.bad01.response).to.deep.equal({ reason: 'BadDeviceToken' });
    expect(byDevice.bb0e01.status).to.equal(410);
    expect(byDevice.bb0e01.response).to.deep.equal({ reason: 'Unregistered', timestamp: 1700000000000 });
    expect(byDevice['500001'].status).to.equal(503);
    expect(byDevice['500001'].response).to.deep.equal({ reason: 'ServiceUnavailable' });
  });

  it('fails the first `times` attempts of a token with 429, then accepts it', async function () {
    const token = 'b05e01';
    const answers: number[] = [];
    for (let i = 0; i < 3; i++) {
      const { failed } = await provider.send(note(), token);
      answers.push(failed.length ? (failed[0].status as number) : 200);
    }
    expect(answers).to.deep.equal([429, 429, 200]);
    expect(f.sim.attempts(token)).to.equal(3);
    const stats = await control(f.sim, `/stats?token=${token}`);
    expect(stats).to.deep.equal({ token, attempts: 3 });
  });

  it('counts answers and keeps payloads with their apns-* headers', async function () {
    const token = hexToken(7);
    await provider.send(
      note({ id: '00000000-0000-4000-8000-000000000001', priority: 5, expiry: 1900000000, collapseId: 'order-1', pushType: 'background', rawPayload: SILENT }),
      token,
    );
    await provider.send(note(), 'bad02');
    const stats = await control(f.sim, '/stats');
    expect(stats.requests).to.equal(2);
    expect(stats.byStatus).to.deep.equal({ 200: 1, 400: 1 });
    expect(stats.byReason).to.deep.equal({ BadDeviceToken: 1 });
    expect(stats.attempts).to.deep.equal({ [token]: 1, bad02: 1 });
    const { deliveries } = await control(f.sim, `/deliveries?token=${token}`);
    expect(deliveries).to.have.length(1);
    expect(deliveries[0].status).to.equal(200);
    expect(JSON.parse(deliveries[0].payload)).to.deep.equal(SILENT);
    expect(deliveries[0].headers).to.include({
      'apns-topic': TOPIC,
      'apns-id': '00000000-0000-4000-8000-000000000001',
      'apns-priority': '5',
      'apns-expiration': '1900000000',
      'apns-collapse-id': 'order-1',
      'apns-push-type': 'background',
    });
  });

  it('changes rules at run time through POST /rules and clears counters with POST /reset', async function () {
    const before = f.sim.rules();
    try {
      await control(f.sim, '/rules', { rules: [{ prefix: 'fade', status: 410 }] });
      const { failed } = await provider.send(note(), 'fade01');
      expect(failed[0].status).to.equal(410);
      expect((failed[0] as Failure).response?.reason).to.equal('Unregistered');
      expect(typeof (failed[0] as Failure).response?.timestamp).to.equal('number');
      expect(await control(f.sim, '/rules', { rules: [{ prefix: 1 }] })).to.deep.equal({ errors: ['rules[0].prefix must be a string'] });
      await control(f.sim, '/reset', {});
      expect(f.sim.stats().requests).to.equal(0);
      expect(f.sim.deliveries()).to.deep.equal([]);
    } finally {
      f.sim.setRules(before);
    }
  });

  it('validates headers and auth like APNs (raw requests)', async function () {
    const auth = (await import('../../core/apns/provider-token.js')).ProviderTokenSigner;
    const authorization = new auth(f.key.privateKeyP8, f.key.keyId, TEAM_ID).current().authorization;
    const path = `/3/device/${hexToken(8)}`;
    const cases: Array<[Record<string, string>, string, number, string | undefined]> = [
      [{ ':path': path, 'apns-topic': TOPIC }, PAYLOAD, 403, 'MissingProviderToken'],
      [{ ':path': path, 'apns-topic': TOPIC, authorization: 'bearer not.a.jwt' }, PAYLOAD, 403, 'InvalidProviderToken'],
      [{ ':path': path, authorization }, PAYLOAD, 400, 'MissingTopic'],
      [{ ':path': path, 'apns-topic': TOPIC, authorization, 'apns-priority': '7' }, PAYLOAD, 400, 'BadPriority'],
      [{ ':path': path, 'apns-topic': TOPIC, authorization, 'apns-push-type': 'shout' }, PAYLOAD, 400, 'InvalidPushType'],
      [{ ':path': path, 'apns-topic': TOPIC, authorization, 'apns-id': 'nope' }, PAYLOAD, 400, 'BadMessageId'],
      [{ ':path': path, 'apns-topic': TOPIC, authorization, 'apns-expiration': 'soon' }, PAYLOAD, 400, 'BadExpirationDate'],
      [{ ':path': path, 'apns-topic': TOPIC, authorization, 'apns-collapse-id': 'c'.repeat(65) }, PAYLOAD, 400, 'BadCollapseId'],
      [{ ':path': path, 'apns-topic': TOPIC, authorization }, '', 400, 'PayloadEmpty'],
      [{ ':path': '/3/device/zz-not-hex', 'apns-topic': TOPIC, authorization }, PAYLOAD, 400, 'BadDeviceToken'],
      [{ ':path': '/2/device/abc', 'apns-topic': TOPIC, authorization }, PAYLOAD, 404, 'BadPath'],
      // Apple's rules per push type (apns-sim/apple-rules.ts).
      [{ ':path': path, 'apns-topic': TOPIC, authorization, 'apns-push-type': 'background', 'apns-priority': '10' }, JSON.stringify(SILENT), 400, 'BadPriority'],
      [{ ':path': path, 'apns-topic': TOPIC, authorization, 'apns-push-type': 'background', 'apns-priority': '5' }, PAYLOAD, 400, 'InvalidPushType'],
      [{ ':path': path, 'apns-topic': TOPIC, authorization, 'apns-push-type': 'voip' }, PAYLOAD, 400, 'BadTopic'],
      [{ ':path': path, 'apns-topic': TOPIC, authorization }, JSON.stringify({ aps: { alert: 'x', 'interruption-level': 'loud' } }), 400, 'BadPayload'],
      [{ ':path': path, 'apns-topic': TOPIC, authorization }, JSON.stringify({ aps: { alert: 'x'.repeat(4100) } }), 413, 'PayloadTooLarge'],
      [{ ':path': path, 'apns-topic': TOPIC, authorization, 'apns-push-type': 'background', 'apns-priority': '5' }, JSON.stringify(SILENT), 200, undefined],
      [{ ':path': path, 'apns-topic': TOPIC, authorization }, PAYLOAD, 200, undefined],
    ];
    for (const [headers, body, status, reason] of cases) {
      const answer = await rawRequest(f, headers, body);
      expect([answer.status, answer.body?.reason], JSON.stringify(headers)).to.deep.equal([status, reason]);
      expect(answer.headers['apns-id']).to.be.a('string');
    }
  });

  it('loads rules from a JSON file', async function () {
    const file = join(f.sim.certDir, 'rules.json');
    await writeFile(file, JSON.stringify({ rules: [{ prefix: 'dead', status: 400, reason: 'DeviceTokenNotForTopic' }] }));
    const g = await startSimWithKey({ rulesFile: file });
    const p = nodeApnProvider(g);
    try {
      const { failed } = await p.send(note(), 'dead01');
      expect(failed[0].status).to.equal(400);
      expect((failed[0] as Failure).response).to.deep.equal({ reason: 'DeviceTokenNotForTopic' });
    } finally {
      await p.shutdown();
      await g.sim.close();
    }
  });
});
