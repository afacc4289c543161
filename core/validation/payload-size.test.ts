import { expect } from 'chai';
import { buildApnsPayload, largestPayloadBytes } from '../payload/apns-payload.js';
import { largestFcmMessageBytes } from '../payload/fcm-message.js';
import { ANDROID_PAYLOAD_TOO_LARGE, BOTH_PAYLOADS_TOO_LARGE, PAYLOAD_TOO_LARGE, payloadTooLarge } from './validate-send.js';
import { problems, validate } from './helpers.test-support.js';

/**
 * The body whose largest payload is exactly `bytes` long: a short `en` and a `ja` text of
 * three-byte characters, topped up with ASCII to the byte.
 */
function bodyOfSize(bytes: number): Record<string, unknown> {
  // Apple's payload alone (isAndroid false): the FCM message, larger by its data, is measured below.
  const changes = (ja: string) => ({
    isAndroid: false,
    contents: { en: 'Hello', ja },
    headings: { en: 'News', ja: 'ニュース' },
    url: 'myapp://news/1',
    data: { article: '1' },
  });
  const probe = validate(changes('あ'));
  const oneChar = Buffer.byteLength(buildApnsPayload(probe, 'ja'), 'utf8'); // payload with 1 char
  const room = bytes - oneChar;
  const kana = Math.floor(room / 3);
  const ascii = room - kana * 3;
  return changes('あ'.repeat(1 + kana) + 'a'.repeat(ascii));
}

describe('4 KB rule', () => {
  it('accepts a payload of exactly 4,096 bytes (multi-byte language)', () => {
    const changes = bodyOfSize(4096);
    const req = validate(changes);
    expect(Buffer.byteLength(buildApnsPayload(req, 'ja'), 'utf8')).to.equal(4096);
    expect(largestPayloadBytes(req)).to.equal(4096);
    // Fewer than 2,000 characters: only the byte count is at its limit.
    expect([...req.contents.ja].length).to.be.below(2000);
  });

  it('refuses a payload of 4,097 bytes, with the contract sentence', () => {
    expect(problems(() => validate(bodyOfSize(4097)))).to.deep.equal([PAYLOAD_TOO_LARGE]);
    expect(PAYLOAD_TOO_LARGE).to.equal('This notification is larger than 4KB. It is not cut short.');
  });

  it('checks the longest language, not the default one', () => {
    const changes = bodyOfSize(4097);
    expect((changes.contents as Record<string, string>).en).to.equal('Hello');
    expect(problems(() => validate(changes))).to.deep.equal([PAYLOAD_TOO_LARGE]);
  });

  it('counts the data, button and image in the payload', () => {
    const small = bodyOfSize(4000);
    expect(() => validate(small)).to.not.throw();
    const withButton = { ...small, buttons: [{ id: 'open', text: 'Open the full article now' }], big_picture: 'https://cdn.example.com/' + 'p'.repeat(60) + '.png' };
    expect(problems(() => validate(withButton))).to.deep.equal([PAYLOAD_TOO_LARGE]);
  });
});

/**
 * A body whose largest Apple payload is `apns` bytes and largest FCM message `fcm` bytes, for
 * either platform narrowing. Three knobs, measured not assumed: the text (contents) counts for
 * both, a data value counts once for Apple and twice for FCM (its own key and custom.a), the
 * subtitle for Apple only. Checked exactly by the caller.
 */
function bodyOfSizes(apns: number, fcm: number, platform: Record<string, unknown> = {}): Record<string, unknown> {
  const shape = (text: number, data: number, subtitle: number) => ({
    ...platform,
    contents: { en: 'あ'.repeat(Math.floor(text / 3)) + 'x'.repeat(text % 3) },
    data: { k: 'v'.repeat(data) },
    subtitle: { en: 's'.repeat(subtitle) },
  });
  const base = validate({ ...shape(3, 0, 1), isIos: undefined, isAndroid: undefined });
  const [apns0, fcm0] = [largestPayloadBytes(base), largestFcmMessageBytes(base)];
  // apns − fcm = (apns0 − fcm0) + (subtitle − 1) − data: the data or the subtitle makes up the difference.
  const gap = apns - fcm - (apns0 - fcm0);
  const data = Math.max(0, -gap);
  const subtitle = 1 + Math.max(0, gap);
  return shape(3 + apns - apns0 - data - (subtitle - 1), data, subtitle);
}

/** The sizes of a body as each gateway would count them (measured on the request, not validated). */
function sizesOf(changes: Record<string, unknown>): [number, number] {
  const req = validate({ ...changes, isIos: undefined, isAndroid: undefined, contents: { en: 'x' } });
  const full = { ...req, contents: changes.contents as Record<string, string>, subtitle: changes.subtitle as Record<string, string>, data: changes.data as Record<string, string> };
  return [largestPayloadBytes(full), largestFcmMessageBytes(full)];
}

describe('4 KB rule per platform (issue 39 point 3)', () => {
  const androidOnly = { isIos: false };
  const iosOnly = { isAndroid: false };
  const cases: Array<[string, number, number, Record<string, unknown>, string | undefined]> = [
    // Android alone: its 4,096 bytes decide; the Apple payload (over 4 KB) is not measured.
    ['Android alone at 4,096 (Apple payload over, not reached)', 4166, 4096, androidOnly, undefined],
    ['Android alone at 4,097', 4166, 4097, androidOnly, ANDROID_PAYLOAD_TOO_LARGE],
    // iOS alone: Apple's 4,096 decide; the FCM message (over 4 KB) is not measured.
    ['iOS alone at 4,096 (FCM message over, not reached)', 4096, 4396, iosOnly, undefined],
    ['iOS alone at 4,097', 4097, 4396, iosOnly, PAYLOAD_TOO_LARGE],
    // Both platforms (neither isIos nor isAndroid false): each is held to its own 4,096.
    ['both at 4,096', 4096, 4096, {}, undefined],
    ['both, iOS at 4,097', 4097, 4096, {}, PAYLOAD_TOO_LARGE],
    ['both, Android at 4,097', 4096, 4097, {}, ANDROID_PAYLOAD_TOO_LARGE],
    ['both at 4,097', 4097, 4097, {}, BOTH_PAYLOADS_TOO_LARGE],
  ];
  for (const [name, apns, fcm, platform, refused] of cases) {
    it(`${name}: ${refused ? 'refused' : 'accepted'}`, () => {
      const changes = bodyOfSizes(apns, fcm, platform);
      expect(sizesOf(changes)).to.deep.equal([apns, fcm]);
      if (refused) expect(problems(() => validate(changes))).to.deep.equal([refused]);
      else expect(validate(changes).contents.en).to.equal((changes.contents as Record<string, string>).en);
    });
  }

  it('names the platform in the contract sentence, both in one sentence', () => {
    expect(ANDROID_PAYLOAD_TOO_LARGE).to.equal('This notification is larger than 4KB for Android (FCM counts the message without its token). It is not cut short.');
    expect(BOTH_PAYLOADS_TOO_LARGE).to.equal('This notification is larger than 4KB for both iOS and Android. It is not cut short.');
  });

  it('reads the platforms from SendRequest.platforms, both when absent', () => {
    const over = validate(bodyOfSizes(4000, 4097, iosOnly));
    expect(payloadTooLarge(over)).to.equal(undefined);
    expect(payloadTooLarge({ ...over, platforms: undefined })).to.equal(ANDROID_PAYLOAD_TOO_LARGE);
    expect(payloadTooLarge({ ...over, platforms: ['android'] })).to.equal(ANDROID_PAYLOAD_TOO_LARGE);
  });
});
