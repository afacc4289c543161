// Sealing: each value bound to its place (associated data), a fixed 16-byte tag, legacy values
// still opened.
import { expect } from 'chai';
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { isSealedWithCurrent, seal, sealContext, SealError, unseal, useKeyring } from './seal.js';

describe('sealed secrets', () => {
  const key = randomBytes(32);
  const here = sealContext('app_credentials', 'material', 'app-a');
  before(() => useKeyring({ current: key, previous: [] }));
  after(() => useKeyring({ previous: [] }));

  it('opens in its own place only: another app or another column does not open it', () => {
    const sealed = seal(Buffer.from('secret p8'), here);
    expect(unseal(sealed, here).toString()).to.equal('secret p8');
    expect(() => unseal(sealed, sealContext('app_credentials', 'material', 'app-b'))).to.throw(SealError, /copied from another app or column/);
    expect(() => unseal(sealed, sealContext('app_credentials', 'passphrase', 'app-a'))).to.throw(SealError);
  });

  it('refuses a value whose tag was cut short or altered', () => {
    const sealed = seal(Buffer.from('secret p8'), here);
    const header = 3 + 8 + 12;
    // Drop 12 of the tag's 16 bytes: a decipher taking the tag length from the value would check 4 bytes.
    const short = Buffer.concat([sealed.subarray(0, header + 4), sealed.subarray(header + 16)]);
    expect(() => unseal(short, here)).to.throw(SealError);
    const flipped = Buffer.from(sealed);
    flipped[header] ^= 1;
    expect(() => unseal(flipped, here)).to.throw(SealError);
    expect(() => unseal(sealed.subarray(0, header + 10), here)).to.throw(SealError, /cut short/);
  });

  it('still opens a value sealed before binding (HS1), which rotate-key then reseals', () => {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const data = Buffer.concat([cipher.update('old secret'), cipher.final()]);
    const id = createHash('sha256').update(key).digest().subarray(0, 8);
    const legacy = Buffer.concat([Buffer.from('HS1'), id, iv, cipher.getAuthTag(), data]);
    expect(unseal(legacy, here).toString()).to.equal('old secret');
    expect(isSealedWithCurrent(legacy), 'rotate-key reseals it').to.equal(false);
    expect(isSealedWithCurrent(seal(Buffer.from('x'), here))).to.equal(true);
  });
});
