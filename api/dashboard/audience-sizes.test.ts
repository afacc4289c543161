// The dashboard's audience sizes: one count for concurrent callers, kept 30 s per (app, target),
// a failure not kept, at most SIZES_KEPT sizes with the oldest evicted, lists never counted.
import { expect } from 'chai';
import type { AppRecord } from '../../core/apps/app-store.js';
import type { SendTarget } from '../../core/send-model/request.js';
import { AudienceSizes, SIZE_KEPT_MS } from './audience-sizes.js';

const app = (id: string) => ({ id }) as AppRecord;
const segment = (name: string): SendTarget => ({ kind: 'segment', segment: name });
const at = (ms: number) => new Date(Date.UTC(2026, 10, 25) + ms);

describe('dashboard audience sizes', () => {
  let counts: string[];
  let answer: number;
  const counter = () => {
    counts = [];
    answer = 7;
    return async (a: AppRecord, t: SendTarget) => {
      counts.push(`${a.id}:${JSON.stringify(t)}`);
      return answer;
    };
  };

  it('shares one count among the callers that arrive while it runs', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let n = 0;
    const sizes = new AudienceSizes(async () => {
      n++;
      await gate;
      return 42;
    });
    const asked = [sizes.get(app('a'), segment('VIP'), at(0)), sizes.get(app('a'), segment('VIP'), at(1))];
    release();
    expect((await Promise.all(asked)).map((s) => s.estimate)).to.deep.equal([42, 42]);
    expect(n).to.equal(1);
  });

  it('keeps a size 30 s per app and target, then counts again', async () => {
    const sizes = new AudienceSizes(counter());
    expect(await sizes.get(app('a'), segment('VIP'), at(0))).to.deep.equal({ estimate: 7, countedAt: at(0) });
    answer = 9;
    expect((await sizes.get(app('a'), segment('VIP'), at(SIZE_KEPT_MS - 1))).estimate).to.equal(7);
    expect((await sizes.get(app('b'), segment('VIP'), at(1))).estimate, 'another app').to.equal(9);
    expect((await sizes.get(app('a'), { ...segment('VIP'), excluding: ['Inactive Users'] }, at(1))).estimate, 'another target').to.equal(9);
    expect(await sizes.get(app('a'), segment('VIP'), at(SIZE_KEPT_MS))).to.deep.equal({ estimate: 9, countedAt: at(SIZE_KEPT_MS) });
    expect(counts).to.have.length(4);
  });

  it('counts again at once when a segment the target names is redefined (an edit, an App change)', async () => {
    const sizes = new AudienceSizes(counter());
    const shop = (value: string) => ({ id: 'a', name: 'shop', segments: [], apiSegments: [{ id: 'x', name: 'Buyers', filters: [], groups: [[{ field: 'tag', key: 'plan', relation: '=', value }]], created_at: '', updated_at: '' }] }) as unknown as AppRecord;
    expect((await sizes.get(shop('gold'), segment('Buyers'), at(0))).estimate).to.equal(7);
    answer = 9;
    expect((await sizes.get(shop('gold'), segment('Buyers'), at(1))).estimate, 'unchanged: kept').to.equal(7);
    expect((await sizes.get(shop('free'), segment('Buyers'), at(2))).estimate, 'redefined: counted').to.equal(9);
    expect((await sizes.get(shop('gold'), { kind: 'segment', segment: 'Subscribed Users', excluding: ['Buyers'] }, at(3))).estimate).to.equal(9);
    answer = 11;
    expect((await sizes.get(shop('free'), { kind: 'segment', segment: 'Subscribed Users', excluding: ['Buyers'] }, at(4))).estimate, 'an excluded segment redefined').to.equal(11);
    expect(counts).to.have.length(4);
  });

  it('keeps no failed count: the next caller counts again', async () => {
    let n = 0;
    const sizes = new AudienceSizes(async () => {
      if (++n === 1) throw new Error('statement timeout');
      return 3;
    });
    await sizes.get(app('a'), segment('VIP'), at(0)).then(() => expect.fail('resolved'), (e: Error) => expect(e.message).to.equal('statement timeout'));
    expect((await sizes.get(app('a'), segment('VIP'), at(1))).estimate).to.equal(3);
    expect(n).to.equal(2);
  });

  it('keeps at most its bound, evicting the oldest', async () => {
    const sizes = new AudienceSizes(counter(), 2);
    await sizes.get(app('a'), segment('one'), at(0));
    await sizes.get(app('a'), segment('two'), at(0));
    await sizes.get(app('a'), segment('three'), at(0)); // evicts 'one'
    await sizes.get(app('a'), segment('two'), at(1));
    await sizes.get(app('a'), segment('three'), at(1));
    expect(counts).to.have.length(3);
    await sizes.get(app('a'), segment('one'), at(1));
    expect(counts).to.have.length(4);
  });

  it('never counts a list of ids: its size is its length', async () => {
    const sizes = new AudienceSizes(counter());
    expect((await sizes.get(app('a'), { kind: 'external_ids', ids: ['u1', 'u2'] }, at(0))).estimate).to.equal(2);
    expect(counts).to.deep.equal([]);
  });
});
