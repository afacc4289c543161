import { expect } from 'chai';
import { KEYS_DIFFER, KEY_FORMAT, KEY_NOT_STRING } from './idempotency-key.js';
import { problems, validate } from './helpers.test-support.js';

describe('idempotency key rules', () => {
  it('uses the contract sentences word for word', () => {
    expect(KEYS_DIFFER).to.equal('The Idempotency-Key header and idempotency_key differ. Send one key.');
    expect(KEY_FORMAT).to.equal('Use a short idempotency key: letters, numbers, dot, or dash.');
    expect(KEY_NOT_STRING).to.equal('idempotency_key is a string.');
  });

  const accepted: Array<[string, Record<string, unknown>, string | undefined, string]> = [
    ['from the header', {}, 'order-12', 'order-12'],
    ['from the body', { idempotency_key: 'order_12.v2' }, undefined, 'order_12.v2'],
    ['from both when equal', { idempotency_key: 'A1' }, 'A1', 'A1'],
    ['of 80 characters', {}, 'k'.repeat(80), 'k'.repeat(80)],
  ];
  for (const [name, changes, header, key] of accepted) {
    it(`accepts a key ${name}`, () => {
      expect(validate(changes, { idempotencyHeader: header }).idempotencyKey).to.equal(key);
    });
  }

  it('has no key when none is given', () => {
    expect(validate()).to.not.have.property('idempotencyKey');
  });

  const refused: Array<[string, Record<string, unknown>, string | undefined, string[]]> = [
    ['header and body differ', { idempotency_key: 'a' }, 'b', [KEYS_DIFFER]],
    ['body key of 81 characters', { idempotency_key: 'k'.repeat(81) }, undefined, [KEY_FORMAT]],
    ['header key with a space', {}, 'order 12', [KEY_FORMAT]],
    ['header key with a slash', {}, 'a/b', [KEY_FORMAT]],
    ['empty header key', {}, '', [KEY_FORMAT]],
    ['empty body key', { idempotency_key: '' }, undefined, [KEY_FORMAT]],
    ['non-ASCII letters', { idempotency_key: 'clé' }, undefined, [KEY_FORMAT]],
    ['a number', { idempotency_key: 12 }, undefined, [KEY_NOT_STRING]],
    ['an object', { idempotency_key: { k: 'a' } }, undefined, [KEY_NOT_STRING]],
    ['a number beside a header', { idempotency_key: 12 }, 'a', [KEY_NOT_STRING]],
  ];
  for (const [name, changes, header, messages] of refused) {
    it(`refuses ${name}`, () => {
      expect(problems(() => validate(changes, { idempotencyHeader: header }))).to.deep.equal(messages);
    });
  }
});
