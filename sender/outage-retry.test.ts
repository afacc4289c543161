import { expect } from 'chai';
import { retryThroughOutage } from './outage-retry.js';

/** A step that fails `times` times, then answers. */
function flaky(times: number): { step: () => Promise<string>; calls: () => number } {
  let calls = 0;
  return {
    step: async () => {
      calls++;
      if (calls <= times) throw new Error(`down ${calls}`);
      return 'up';
    },
    calls: () => calls,
  };
}

describe('retryThroughOutage: a step retried while the chunk is held', () => {
  it('answers at once when the step works', async () => {
    const f = flaky(0);
    expect(await retryThroughOutage(f.step, { forMs: 10_000, stopping: () => false })).to.equal('up');
    expect(f.calls()).to.equal(1);
  });

  it('tries again after a failure and answers once the step works', async () => {
    const f = flaky(2);
    expect(await retryThroughOutage(f.step, { forMs: 10_000, stopping: () => false })).to.equal('up');
    expect(f.calls()).to.equal(3);
  });

  it('gives the error on once its time is up', async () => {
    const f = flaky(5);
    const error = await retryThroughOutage(f.step, { forMs: 0, stopping: () => false }).catch((e: Error) => e);
    expect((error as Error).message).to.equal('down 1');
    expect(f.calls()).to.equal(1);
  });

  it('gives the error on at once when the sender stops, whatever time is left', async () => {
    const f = flaky(5);
    const error = await retryThroughOutage(f.step, { forMs: 60_000, stopping: () => true }).catch((e: Error) => e);
    expect((error as Error).message).to.equal('down 1');
    expect(f.calls()).to.equal(1);
  });
});
