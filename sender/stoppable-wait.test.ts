import { expect } from 'chai';
import { HandBack, pauseUnlessStopping } from './stoppable-wait.js';

describe('stoppable wait: a back-off a stopping sender cuts short', () => {
  it('ends a pause with HandBack once the sender stops', async () => {
    let stopping = false;
    setTimeout(() => (stopping = true), 50);
    const error = await pauseUnlessStopping(60_000, () => stopping).catch((e) => e);
    expect(error).to.be.instanceOf(HandBack);
  });

  it('returns normally when the sender keeps running', async () => {
    expect(await pauseUnlessStopping(20, () => false)).to.equal(undefined);
  });
});
