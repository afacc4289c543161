import { expect } from 'chai';
import pino from 'pino';
import type { Device } from '../core/delivery/chunks.js';
import { createSenderMetrics } from './metrics.js';
import { isPoison, poisonOutcome } from './poison.js';

const device = (entry: string): Device => ({ entry, subscriptionId: `sub-${entry}`, token: `tok-${entry}`, language: null, environment: null });
const log = pino({ level: 'silent' });

describe('poison chunks: started too often without a record', () => {
  it('is poison from the maxChunkStarts-th start on, not before', () => {
    expect(isPoison({ claims: 5 }, 6)).to.equal(false);
    expect(isPoison({ claims: 6 }, 6)).to.equal(true);
    expect(isPoison({ claims: 7 }, 6)).to.equal(true);
    expect(isPoison({ claims: 1 }, 2)).to.equal(false);
    expect(isPoison({ claims: 2 }, 2)).to.equal(true);
  });

  it('records the entries that have a device failed and the rest of the planned ones skipped, sending nothing', async () => {
    const metrics = createSenderMetrics();
    const outcome = poisonOutcome({ claims: 6, planned: 4 }, { entries: ['a', 'b', 'c'], devices: [device('a'), device('c')] }, log, metrics);
    expect(outcome).to.deep.equal({
      sent: 0, failed: 2, skipped: 2, leftOut: 0, unsubscribe: [],
      // Each device's event (core/events/record.ts), as a refusal's would be.
      failedFor: [{ subscriptionId: 'sub-a', reason: 'RedeliveryExhausted' }, { subscriptionId: 'sub-c', reason: 'RedeliveryExhausted' }],
    });
    expect((await metrics.chunks.get()).values.map((v) => [v.labels.result, v.value])).to.deep.equal([['exhausted', 1]]);
    expect((await metrics.deliveries.get()).values.map((v) => [v.labels.outcome, v.labels.reason, v.value])).to.deep.equal([['failed', 'RedeliveryExhausted', 2]]);
  });

  it('skips nothing below zero when more devices were found than planned', () => {
    const outcome = poisonOutcome({ claims: 6, planned: 1 }, { entries: ['a', 'b'], devices: [device('a'), device('b')] }, log, createSenderMetrics());
    expect(outcome).to.include({ failed: 2, skipped: 0 });
  });
});
