// OneSignal's Android fields and isIos / isAndroid (issue 39 points 3 and 4), by their wire names:
// each kept in SendRequest.android (they used to be dropped without a word), each string at its
// edges (1 and 256 accepted, 0 and 257 refused), the accent colour as AARRGGBB only, one channel
// field of the two, and the platforms a send is narrowed to (both false: a 422).
import { expect } from 'chai';
import { problems, validate } from './helpers.test-support.js';
import { LIMITS } from './limits.js';
import { NO_PLATFORM, platformFlags } from './android-options.js';
import { validateSendAudience } from './validate-send.js';
import { APP, body } from './helpers.test-support.js';

const MAX = LIMITS.android_text;

describe("OneSignal's Android fields, by their wire names", () => {
  const mapped: Array<[Record<string, unknown>, Record<string, unknown>]> = [
    [{ android_channel_id: 'news' }, { channelId: 'news' }],
    [{ existing_android_channel_id: 'c0ffee00-0000-4000-8000-000000000000' }, { channelId: 'c0ffee00-0000-4000-8000-000000000000' }],
    [{ small_icon: 'ic_stat_bell' }, { smallIcon: 'ic_stat_bell' }],
    [{ android_accent_color: 'FF0099CC' }, { accentColor: 'FF0099CC' }],
    [{ android_accent_color: '80abcdef' }, { accentColor: '80abcdef' }],
    [{ android_sound: 'chime' }, { sound: 'chime' }],
    [{ android_group: 'inbox' }, { group: 'inbox' }],
  ];
  for (const [changes, android] of mapped) {
    it(`keeps ${JSON.stringify(changes)}`, () => expect(validate(changes).android).to.deep.equal(android));
  }

  it('leaves android out of a request that names no Android field (stored requests stay as they were)', () => {
    expect(validate()).to.not.have.property('android');
    expect(validate()).to.not.have.property('platforms');
  });

  for (const field of ['android_channel_id', 'existing_android_channel_id', 'small_icon', 'android_sound', 'android_group']) {
    it(`${field}: 1 and ${MAX} characters accepted (${MAX} emoji too), 0 and ${MAX + 1} refused`, () => {
      expect(() => validate({ [field]: 'a' })).to.not.throw();
      expect(() => validate({ [field]: 'a'.repeat(MAX) })).to.not.throw();
      expect(() => validate({ [field]: '🔔'.repeat(MAX) })).to.not.throw();
      for (const value of ['', 'a'.repeat(MAX + 1)]) {
        expect(problems(() => validate({ [field]: value }))).to.deep.equal([`${field} must be 1 to ${MAX} characters.`]);
      }
    });
  }

  it('android_accent_color: 8 hex digits only, with a sentence saying so', () => {
    const sentence = 'android_accent_color must be 8 hex digits, alpha then red, green and blue (AARRGGBB), such as FF0099CC.';
    for (const value of ['0099CC', '#FF0099CC', 'FF0099C', 'FF0099CCD', 'GG0099CC', '', 'ff0099cc\n']) {
      expect(problems(() => validate({ android_accent_color: value })), JSON.stringify(value)).to.deep.equal([sentence]);
    }
    expect(problems(() => validate({ android_accent_color: 0xff0099cc }))[0]).to.match(/^android_accent_color /);
  });

  it('android_channel_id and existing_android_channel_id: one of the two', () => {
    expect(problems(() => validate({ android_channel_id: 'a', existing_android_channel_id: 'b' }))).to.deep.equal([
      'android_channel_id and existing_android_channel_id both name the notification channel. Send one of them.',
    ]);
  });

  it('big_picture stays the one image field (imageUrl) for both platforms', () => {
    expect(validate({ big_picture: 'https://x.example/i.png' }).imageUrl).to.equal('https://x.example/i.png');
  });
});

describe('isIos / isAndroid', () => {
  const cases: Array<[Record<string, unknown>, string[] | undefined]> = [
    [{}, undefined],
    [{ isIos: true, isAndroid: true }, undefined],
    [{ isAndroid: false }, ['ios']],
    [{ isIos: true, isAndroid: false }, ['ios']],
    [{ isIos: false }, ['android']],
    [{ isIos: false, isAndroid: true }, ['android']],
  ];
  for (const [changes, platforms] of cases) {
    it(`${JSON.stringify(changes)} → ${platforms ? platforms.join() : 'both platforms'}`, () => {
      const req = validate(changes);
      expect(req.platforms).to.deep.equal(platforms);
      expect(req.target.platform).to.equal(platforms?.[0]);
      expect(platformFlags(req.platforms)).to.deep.equal(platforms === undefined ? {} : platforms[0] === 'ios' ? { isAndroid: false } : { isIos: false });
    });
  }

  it('both false is a 422 with a clear sentence, for the send and for the estimate', () => {
    expect(problems(() => validate({ isIos: false, isAndroid: false }))).to.deep.equal([NO_PLATFORM]);
    expect(problems(() => validateSendAudience({ body: body({ isIos: false, isAndroid: false }), app: APP }))).to.deep.equal([NO_PLATFORM]);
    expect(validateSendAudience({ body: body({ isIos: false }), app: APP }).platform).to.equal('android');
  });

  it('a push type only iOS installs hold a token of, narrowed to Android, is a 422', () => {
    expect(problems(() => validate({ contents: undefined, apns_push_type_override: 'voip', isIos: false }))).to.deep.equal([
      'apns_push_type_override voip reaches iOS installs only; with isIos false the send would reach none.',
    ]);
    expect(validate({ contents: undefined, apns_push_type_override: 'voip', isAndroid: false }).target.platform).to.equal('ios');
  });

  it('a flag that is not a boolean is refused by the shape check', () => {
    expect(problems(() => validate({ isAndroid: 'no' }))[0]).to.match(/^isAndroid /);
  });
});
