import { expect } from 'chai';
import { HandBack, holdThroughOutages, pauseUnlessStopping } from './outage-hold.js';
import type { Pool } from '../core/store/db.js';

function fakeMsg() {
  const calls = { working: 0, naks: [] as (number | undefined)[] };
  return { calls, msg: { working: () => void calls.working++, nak: (ms?: number) => void calls.naks.push(ms) } };
}

describe('outage hold: a job through a dependency outage and a stop', () => {
  it('holds the job (working) while PostgreSQL does not answer, then works it again', async () => {
    let answers = 0;
    const pool = { query: async () => { if (answers++ < 1) throw new Error('ECONNREFUSED'); } } as unknown as Pool;
    const { calls, msg } = fakeMsg();
    let runs = 0;
    const result = await holdThroughOutages({ pool, bus: { connected: () => true }, stopping: () => false }, msg, async () => (++runs < 2 ? 'outage' : 'ack'));
    expect(result).to.equal('ack');
    expect(runs).to.equal(2);
    expect(calls.working).to.be.at.least(2);
    expect(calls.naks).to.deep.equal([]);
  });

  it('hands the job back (nak) when the sender is stopping', async () => {
    const pool = { query: async () => undefined } as unknown as Pool;
    const { calls, msg } = fakeMsg();
    const result = await holdThroughOutages({ pool, bus: { connected: () => false }, stopping: () => true }, msg, async () => 'outage');
    expect(result).to.equal('nak');
    expect(calls.naks).to.have.length(1);
  });

  it('ends a pause with HandBack once the sender stops', async () => {
    let stopping = false;
    setTimeout(() => (stopping = true), 50);
    const error = await pauseUnlessStopping(60_000, () => stopping).catch((e) => e);
    expect(error).to.be.instanceOf(HandBack);
  });
});
