// Reading an audience search: what the one box reads the text as, each kind's rules and
// sentences, and what reaches the statement.
import { expect } from 'chai';
import { FindError, findInstallsQuery, parseFind } from './find.js';

const APP = '5b0b6f2e-0f55-4c3c-9d0b-1f0a0e6f6c11';
const refusal = (by: string, q: string) => {
  try {
    parseFind(by, q);
  } catch (error) {
    expect(error).to.be.instanceOf(FindError);
    return (error as FindError).message;
  }
  return expect.fail(`${by}=${JSON.stringify(q)} was accepted`);
};

describe('audience search: parseFind', () => {
  it('refuses text PostgreSQL cannot take in a parameter with a sentence, never a statement that fails', () => {
    for (const by of ['any', 'external_id', 'tag', 'token', 'subscription_id']) {
      expect(refusal(by, 'plan=go\u0000ld'), by).to.equal('q contains U+0000 (a NUL character), which cannot be stored.');
      expect(refusal(by, 'x\uD800'), by).to.equal('q contains an unpaired UTF-16 surrogate, which is not valid Unicode.');
    }
  });

  it('keeps a tag value as typed (spaces included) and trims only the key', () => {
    expect(parseFind('tag', ' plan = gold')).to.deep.equal([{ by: 'tag', value: 'plan', tagValue: ' gold' }]);
    expect(parseFind('tag', 'plan= gold ')).to.deep.equal([{ by: 'tag', value: 'plan', tagValue: ' gold ' }]);
    expect(parseFind('tag', 'plan=a=b')).to.deep.equal([{ by: 'tag', value: 'plan', tagValue: 'a=b' }]);
    expect(findInstallsQuery(APP, parseFind('tag', 'plan= gold')).values).to.include(' gold');
  });

  it('refuses a tag without a key, and an over-long q counting its spaces', () => {
    for (const q of ['plan', '=gold', '  =gold']) expect(refusal('tag', q), q).to.equal('A tag is key=value, such as plan=gold.');
    expect(refusal('tag', `plan=${' '.repeat(260)}x`)).to.equal('q is longer than 256 characters.');
  });

  it('reads ids, tokens and external ids trimmed, as before', () => {
    expect(parseFind('subscription_id', ` ${APP.toUpperCase()} `)).to.deep.equal([{ by: 'subscription_id', value: APP }]);
    expect(parseFind('token', ' B2000 ')).to.deep.equal([{ by: 'token', value: 'b2000' }]);
    // An FCM token's start keeps its case (FCM tokens are case-sensitive), and is bounded by U+007F.
    expect(parseFind('token', ' fX3kq9Zr:APA ')).to.deep.equal([{ by: 'token', value: 'fX3kq9Zr:APA' }]);
    expect(findInstallsQuery(APP, parseFind('token', 'fX3kq9Zr:APA')).values).to.deep.equal([APP, 'fX3kq9Zr:APA', 'fX3kq9Zr:APA\u007f']);
    expect(findInstallsQuery(APP, parseFind('token', 'B2000')).values).to.deep.equal([APP, 'b2000', 'b2000g']);
    const rule = 'A token prefix is 4 to 200 hex digits (0-9, a-f) for an iOS install, or 8 to 256 characters of A-Z, a-z, 0-9, _, :, . and - for an Android one.';
    for (const q of ['vip-3', 'fX3kq9Z', 'fX3kq9Zr!', APP]) expect(refusal('token', q), q).to.equal(rule);
    expect(parseFind('external_id', ' u42 ')).to.deep.equal([{ by: 'external_id', value: 'u42' }]);
  });

  describe('one box: the text says what it is, and any text may be an external id', () => {
    const kinds = (q: string) => parseFind('any', q).map((l) => l.by);
    const cases: [string, string[]][] = [
      [APP, ['subscription_id', 'external_id']],
      [` ${APP.toUpperCase()} `, ['subscription_id', 'external_id']],
      ['B2000', ['external_id', 'token']],
      ['1234', ['external_id', 'token']], // a numeric user id is also hex
      ['123', ['external_id']], // too short for a token prefix
      ['plan=gold', ['external_id', 'tag']],
      ['vip-1', ['external_id']],
      ['user@example.com', ['external_id']],
      ['🙂'.repeat(128), ['external_id']], // 128 characters (code points), as the rule counts them
      ['a'.repeat(128), ['external_id', 'token']],
      ['g'.repeat(128), ['external_id', 'token']], // an FCM token's start (Android)
      ['g'.repeat(7), ['external_id']], // too short for one
      ['vip-1', ['external_id']],
      ['fX3kq9Zr-QmO0u3jUh1_2S:APA91bH', ['external_id', 'token']],
      [`fX3kq9Zr:${'A'.repeat(247)}`, ['token']], // 256 characters: longer than an external id
      ['5B0B6F2E', ['external_id', 'token']], // hex: an APNs token's start, lowercased
      ['f'.repeat(200), ['token']], // longer than an external id, as long as a token
      [`k=${'v'.repeat(200)}`, ['tag']],
    ];
    for (const [q, expected] of cases) {
      it(`${JSON.stringify(q.length > 40 ? `${q.slice(0, 12)}…(${q.length})` : q)} → ${expected.join(', ')}`, () => {
        expect(kinds(q)).to.deep.equal(expected);
      });
    }

    it('keeps the values as each kind reads them: lowercase ids and tokens, the external id as typed', () => {
      expect(parseFind('any', ` ${APP.toUpperCase()} `)).to.deep.equal([
        { by: 'subscription_id', value: APP },
        { by: 'external_id', value: APP.toUpperCase() },
      ]);
      expect(parseFind('any', 'plan= gold')).to.deep.equal([
        { by: 'external_id', value: 'plan= gold' },
        { by: 'tag', value: 'plan', tagValue: ' gold' },
      ]);
    });

    it('is bounded: 257 characters refused before reading; blank, and what no install can have, refused', () => {
      const nothing = 'q is nothing an install has: an external id is at most 128 characters, a token at most 200 hex digits (iOS) or 256 of A-Z, a-z, 0-9, _, :, . and - (Android), a tag key=value.';
      expect(refusal('any', 'x'.repeat(257))).to.equal('q is longer than 256 characters.');
      expect(refusal('any', '   ')).to.equal('q is empty: type what to look for.');
      for (const q of ['x'.repeat(255) + '!', 'a'.repeat(201), `=${'x'.repeat(200)}`]) expect(refusal('any', q), q.slice(0, 3)).to.equal(nothing);
      expect(refusal('anything', 'u42')).to.equal('by is one of any, subscription_id, external_id, token, tag.');
    });
  });
});
