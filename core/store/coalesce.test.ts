import { expect } from 'chai';
import { GroupedStatement, SharedRead } from './coalesce.js';
import { DependencyUnavailableError } from '../faults/unavailable.js';

const tick = () => new Promise((r) => setImmediate(r));

describe('coalesce: shared reads and grouped writes', () => {
  it('shares a read in flight per key, and reads again once it ended', async () => {
    const calls: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const reads = new SharedRead(async (key) => {
      calls.push(key);
      await gate;
      return `${key}@${calls.length}`;
    });
    const first = [reads.get('a'), reads.get('a'), reads.get('b')];
    release();
    expect(await Promise.all(first)).to.deep.equal(['a@2', 'a@2', 'b@2']);
    expect(await reads.get('a')).to.equal('a@3');
    expect(calls).to.deep.equal(['a', 'b', 'a']);
  });

  it('a failed read is not kept', async () => {
    let n = 0;
    const reads = new SharedRead(async () => {
      if (++n === 1) throw new Error('down');
      return 'up';
    });
    await reads.get('k').then(() => expect.fail('resolved'), (e: Error) => expect(e.message).to.equal('down'));
    expect(await reads.get('k')).to.equal('up');
  });

  it('groups the items submitted while a write runs into the next write; each caller waits for its own', async () => {
    const writes: number[][] = [];
    const gates: Array<() => void> = [];
    const grouped = new GroupedStatement<number, string>(async (items) => {
      writes.push(items);
      await new Promise<void>((r) => gates.push(r));
      return items.map((i) => `r${i}`);
    });
    const done: number[] = [];
    const first = grouped.submit([1]).then((r) => done.push(1) && r);
    await tick();
    const second = grouped.submit([2, 3]).then((r) => done.push(2) && r);
    const third = grouped.submit([4]).then((r) => done.push(3) && r);
    await tick();
    expect(writes).to.deep.equal([[1]]);
    gates[0]();
    expect(await first).to.deep.equal(['r1']);
    await tick();
    expect(done).to.deep.equal([1]);
    expect(writes).to.deep.equal([[1], [2, 3, 4]]);
    gates[1]();
    expect(await Promise.all([second, third])).to.deep.equal([['r2', 'r3'], ['r4']]);
    expect(done).to.deep.equal([1, 2, 3]);
  });

  it('rejects every caller of a failed write, and the next write still runs', async () => {
    let fail = true;
    const grouped = new GroupedStatement<number>(async () => {
      if (fail) throw new Error('refused');
      return [];
    });
    const results = await Promise.allSettled([grouped.submit([1]), grouped.submit([2])]);
    expect(results.map((r) => r.status)).to.deep.equal(['rejected', 'rejected']);
    fail = false;
    await grouped.submit([3]);
  });

  it('a refused item fails only its own caller: a failed statement of several callers runs each alone', async () => {
    const writes: number[][] = [];
    const grouped = new GroupedStatement<number, string>(async (items) => {
      writes.push(items);
      if (items.includes(0)) throw new Error('invalid input');
      return items.map((i) => `r${i}`);
    });
    const gate = grouped.submit([9]); // runs alone; the next three wait and go together
    const results = await Promise.allSettled([grouped.submit([1]), grouped.submit([0]), grouped.submit([2, 3])]);
    await gate;
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : 'rejected'))).to.deep.equal([['r1'], 'rejected', ['r2', 'r3']]);
    expect(writes).to.deep.equal([[9], [1, 0, 2, 3], [1], [0], [2, 3]]);
  });

  it('an outage fails every caller of the statement at once, without running each again', async () => {
    let calls = 0;
    const grouped = new GroupedStatement<number>(async () => {
      calls++;
      throw new DependencyUnavailableError('postgres', 'connection lost');
    });
    const gate = grouped.submit([0]);
    const results = await Promise.allSettled([gate, grouped.submit([1]), grouped.submit([2])]);
    expect(results.map((r) => r.status)).to.deep.equal(['rejected', 'rejected', 'rejected']);
    expect(calls).to.equal(2);
  });

  it('a burst is carried by statements of at most maxItems items, callers kept whole and in order', async () => {
    const writes: number[][] = [];
    const grouped = new GroupedStatement<number>(async (items) => {
      writes.push(items);
      return items.map(() => undefined);
    }, 4);
    await Promise.all([grouped.submit([0]), grouped.submit([1, 2]), grouped.submit([3, 4]), grouped.submit([5]), grouped.submit([6, 7, 8, 9, 10])]);
    expect(writes).to.deep.equal([[0], [1, 2, 3, 4], [5], [6, 7, 8, 9, 10]]);
  });
});
