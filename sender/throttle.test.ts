import { expect } from 'chai';
import type { ClaimedChunk } from '../core/delivery/claim.js';
import { HandBack } from './stoppable-wait.js';
import { awaitTurn, type Throttle } from './throttle.js';

const chunk = (over: Partial<ClaimedChunk> = {}): ClaimedChunk => ({
  sendId: 7,
  chunk: 3,
  fromSeq: 0,
  toSeq: 500,
  planned: 500,
  claims: 1,
  appId: 'app',
  credentialsVersion: 0,
  throttlePerMinute: 1000,
  targetKind: 'segment',
  timezone: false,
  unplannedWaiting: false,
  ...over,
});

/** A bucket that always answers `waitMs`, and remembers what it was asked. */
function bucket(waitMs: number): Throttle & { asked: unknown[][] } {
  const asked: unknown[][] = [];
  return {
    asked,
    async reserve(...args) {
      asked.push(args);
      return waitMs;
    },
  };
}

const going = { maxHoldMs: 50, stopping: () => false };

describe("awaitTurn: a chunk's turn under its send's throttle", () => {
  it('reserves the chunk\'s devices for a throttled broadcast (segment, tag, filters)', async () => {
    for (const targetKind of ['segment', 'tag', 'filters'] as const) {
      const b = bucket(0);
      expect(await awaitTurn(b, chunk({ targetKind }), going)).to.equal(0);
      expect(b.asked).to.deep.equal([[7, 3, 500, 1000]]);
    }
  });

  it('asks no bucket for a list send, a time-zone send, a send with no rate, or a sender without Redis', async () => {
    for (const c of [chunk({ targetKind: 'external_ids' }), chunk({ targetKind: 'subscription_ids' }), chunk({ timezone: true }), chunk({ throttlePerMinute: null })]) {
      const b = bucket(60_000);
      expect(await awaitTurn(b, c, going)).to.equal(0);
      expect(b.asked).to.deep.equal([]);
    }
    expect(await awaitTurn(undefined, chunk(), going)).to.equal(0);
  });

  it('waits in place up to maxHoldMs, its longest, and goes on', async () => {
    expect(await awaitTurn(bucket(50), chunk(), going)).to.equal(0);
    expect(await awaitTurn(bucket(1), chunk(), going)).to.equal(0);
  });

  it('returns a wait one ms past maxHoldMs, for the chunk to be handed back until its turn', async () => {
    expect(await awaitTurn(bucket(51), chunk(), going)).to.equal(51);
  });

  it('returns any wait once the sender stops, and none when the turn is now', async () => {
    const stopped = { maxHoldMs: 50, stopping: () => true };
    expect(await awaitTurn(bucket(1), chunk(), stopped)).to.equal(1);
    expect(await awaitTurn(bucket(0), chunk(), stopped)).to.equal(0);
  });

  it('ends a wait in place with HandBack when the sender stops meanwhile', async () => {
    let stopping = false;
    setTimeout(() => (stopping = true), 20);
    const error = await awaitTurn(bucket(5000), chunk(), { maxHoldMs: 10_000, stopping: () => stopping }).catch((e) => e);
    expect(error).to.be.instanceOf(HandBack);
  });
});
