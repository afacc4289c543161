import { expect } from 'chai';
import { pino } from 'pino';
import { WorkQueue } from './work-queue.js';
import { waitFor } from '../../test/support/wait.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('WorkQueue', () => {
  it('coalesces a key added while queued, and runs a key added while in progress once more afterwards', async () => {
    const runs: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const q = new WorkQueue({
      name: 't', logger: pino({ level: 'silent' }), concurrency: 1,
      reconcile: async (key) => {
        runs.push(key);
        if (runs.length === 1) await gate;
      },
    });
    q.start();
    q.add('a'); // running, held at the gate
    q.add('a'); // dirty: once more afterwards
    q.add('a');
    q.add('b');
    q.add('b'); // queued once
    release();
    await waitFor('the third run', () => runs.length >= 3, 5000, 5);
    await q.stop(); // waits for the run in progress; a fourth run, had one started, is counted
    expect(runs).to.deep.equal(['a', 'b', 'a']);
    expect(q.length, 'nothing left queued').to.equal(0);
  });

  it('never works one key in two workers at once, and retries a failure with back-off', async () => {
    let active = 0;
    let maxActive = 0;
    let calls = 0;
    const q = new WorkQueue({
      name: 't', logger: pino({ level: 'silent' }), concurrency: 4, backoff: { initialMs: 10, maxMs: 20 },
      reconcile: async () => {
        active += 1;
        maxActive = Math.max(maxActive, active);
        calls += 1;
        await sleep(5);
        active -= 1;
        if (calls < 3) throw new Error('not yet');
      },
    });
    q.start();
    for (let i = 0; i < 10; i += 1) q.add('k');
    // Until the third call succeeded and nothing is left to do (bounded): then count.
    await waitFor('the third call to succeed and the queue to settle', () => calls >= 3 && active === 0 && q.length === 0, 5000, 5);
    expect(maxActive).to.equal(1);
    expect(calls).to.equal(3);
    await q.stop();
  });
});
