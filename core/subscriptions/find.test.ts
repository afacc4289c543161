// Reading an audience search: each kind's rules and sentences, and what reaches the statement.
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
    for (const by of ['external_id', 'tag', 'token', 'subscription_id']) {
      expect(refusal(by, 'plan=go\u0000ld'), by).to.equal('q contains U+0000 (a NUL character), which cannot be stored.');
      expect(refusal(by, 'x\uD800'), by).to.equal('q contains an unpaired UTF-16 surrogate, which is not valid Unicode.');
    }
  });

  it('keeps a tag value as typed (spaces included) and trims only the key', () => {
    expect(parseFind('tag', ' plan = gold')).to.deep.equal({ by: 'tag', value: 'plan', tagValue: ' gold' });
    expect(parseFind('tag', 'plan= gold ')).to.deep.equal({ by: 'tag', value: 'plan', tagValue: ' gold ' });
    expect(parseFind('tag', 'plan=a=b')).to.deep.equal({ by: 'tag', value: 'plan', tagValue: 'a=b' });
    expect(findInstallsQuery(APP, parseFind('tag', 'plan= gold')).values).to.include(' gold');
  });

  it('refuses a tag without a key, and an over-long q counting its spaces', () => {
    for (const q of ['plan', '=gold', '  =gold']) expect(refusal('tag', q), q).to.equal('A tag is key=value, such as plan=gold.');
    expect(refusal('tag', `plan=${' '.repeat(260)}x`)).to.equal('q is longer than 256 characters.');
  });

  it('reads ids, tokens and external ids trimmed, as before', () => {
    expect(parseFind('subscription_id', ` ${APP.toUpperCase()} `)).to.deep.equal({ by: 'subscription_id', value: APP });
    expect(parseFind('token', ' B2000 ')).to.deep.equal({ by: 'token', value: 'b2000' });
    expect(parseFind('external_id', ' u42 ')).to.deep.equal({ by: 'external_id', value: 'u42' });
  });
});
