import { expect } from 'chai';
import { buildApnsPayload, largestPayloadBytes } from '../payload/apns-payload.js';
import { PAYLOAD_TOO_LARGE } from './validate-send.js';
import { problems, validate } from './helpers.test-support.js';

/**
 * The body whose largest payload is exactly `bytes` long: a short `en` and a `ja` text of
 * three-byte characters, topped up with ASCII to the byte.
 */
function bodyOfSize(bytes: number): Record<string, unknown> {
  const changes = (ja: string) => ({
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
