import { expect } from 'chai';
import { backoffMs } from './backoff.js';

describe('backoffMs: the first wait, doubling, capped', () => {
  const b = { baseMs: 200, maxMs: 2000 };

  it('waits baseMs before the first retry', () => {
    expect(backoffMs(1, b)).to.equal(200);
  });

  it('doubles with each attempt up to the cap, and holds the cap from there on', () => {
    expect([2, 3, 4, 5, 6].map((n) => backoffMs(n, b))).to.deep.equal([400, 800, 1600, 2000, 2000]);
  });

  it('reaches the cap exactly when a doubling lands on it, and never passes it however many attempts', () => {
    expect(backoffMs(4, { baseMs: 250, maxMs: 2000 })).to.equal(2000);
    expect(backoffMs(3, { baseMs: 250, maxMs: 2000 })).to.equal(1000);
    expect(backoffMs(10_000, b)).to.equal(2000);
  });

  it('jittered: anywhere in the upper half of the wait, the cap included', () => {
    const sender = { baseMs: 250, maxMs: 5000 };
    expect(backoffMs(1, sender, () => 0)).to.equal(125);
    expect(backoffMs(1, sender, () => 1)).to.equal(250);
    expect(backoffMs(3, sender, () => 1)).to.equal(1000);
    expect(backoffMs(20, sender, () => 1)).to.equal(5000);
    expect(backoffMs(20, sender, () => 0)).to.equal(2500);
  });
});
