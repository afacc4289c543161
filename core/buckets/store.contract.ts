// The contract every bucket adapter passes (STYLE.md "Ports": one suite, run against each).
// Time is injected: `advance` moves the adapter's clock, so no test waits or asserts on timing.
import { expect } from 'chai';
import { BUCKETS, type BucketName } from './policy.js';
import type { BucketDraw, BucketStore } from './store.js';

export interface ContractSubject {
  store: BucketStore;
  /** Moves the adapter's clock forward by `ms`. */
  advance(ms: number): void;
  /** Unique per test, so tests never share a bucket. */
  prefix: string;
}

export function bucketStoreContract(name: string, make: () => Promise<ContractSubject>, cleanup?: () => Promise<void>): void {
  describe(`bucket store contract: ${name}`, () => {
    let s: ContractSubject;
    beforeEach(async () => { s = await make(); });
    afterEach(async () => { await s.store.close(); await cleanup?.(); });

    const d = (bucket: BucketName, id = 'k1'): BucketDraw => ({ key: `${s.prefix}${bucket}:${id}`, spec: BUCKETS[bucket] });
    async function drain(draws: BucketDraw[], times: number) {
      for (let i = 0; i < times; i++) {
        const r = await s.store.drawChain(draws);
        expect(r.refused, `draw ${i + 1} of ${times}`).to.equal(undefined);
      }
    }

    // Capacity, rate and window of every bucket, straight from the contract's table.
    const table: [BucketName, number, number][] = [
      ['send', 100, 50], ['broadcast', 10, 30 / 60], ['read', 40, 20], ['audience', 10, 10 / 60], ['ip', 6000, 100], ['anonymous', 120, 2],
    ];
    for (const [bucket, capacity, perSecond] of table) {
      it(`${bucket}: holds ${capacity}, then refuses, then refills at ${perSecond}/s`, async () => {
        const draw = [d(bucket)];
        await drain(draw, capacity);
        const refused = await s.store.drawChain(draw);
        expect(refused.refused?.spec.name).to.equal(bucket);
        expect(refused.refused?.remaining).to.equal(0);
        const oneTokenMs = 1000 / perSecond;
        expect(refused.refused?.retryAfterMs).to.be.closeTo(oneTokenMs, 1);
        expect(refused.refused?.resetMs).to.be.closeTo(capacity * oneTokenMs, 1);
        s.advance(Math.ceil(oneTokenMs));
        const again = await s.store.drawChain(draw);
        expect(again.refused).to.equal(undefined);
        expect(again.outcomes[0]!.remaining).to.equal(0);
        expect((await s.store.drawChain(draw)).refused).to.not.equal(undefined);
      });
    }

    it('counts remaining down from capacity - 1 and reports time until full', async () => {
      const r1 = await s.store.drawChain([d('send')]);
      expect(r1.outcomes[0]).to.include({ allowed: true, remaining: 99, retryAfterMs: 0 });
      expect(r1.outcomes[0]!.resetMs).to.equal(20);
      const r2 = await s.store.drawChain([d('send')]);
      expect(r2.outcomes[0]!.remaining).to.equal(98);
      expect(r2.outcomes[0]!.resetMs).to.equal(40);
      expect(r2.nowMs).to.be.a('number');
    });

    it('refills continuously, never above capacity', async () => {
      await drain([d('read')], 40);
      s.advance(10_000);
      const r = await s.store.drawChain([d('read')]);
      expect(r.outcomes[0]!.remaining).to.equal(39);
    });

    it('a refused bucket leaves every later bucket untouched, earlier ones drawn', async () => {
      await drain([d('broadcast')], 10);
      const r = await s.store.drawChain([d('ip'), d('broadcast'), d('audience', 'app:seg')]);
      expect(r.outcomes.map((o) => [o.spec.name, o.allowed])).to.deep.equal([['ip', true], ['broadcast', false]]);
      expect(r.refused?.spec.name).to.equal('broadcast');
      const audience = await s.store.drawChain([d('audience', 'app:seg')]);
      expect(audience.outcomes[0]!.remaining).to.equal(9); // first real draw
      const ip = await s.store.drawChain([d('ip')]);
      expect(ip.outcomes[0]!.remaining).to.equal(6000 - 2); // the refused call drew ip, then this one
    });

    it('buckets with different keys are independent', async () => {
      await drain([d('audience', 'a')], 10);
      expect((await s.store.drawChain([d('audience', 'a')])).refused).to.not.equal(undefined);
      expect((await s.store.drawChain([d('audience', 'b')])).refused).to.equal(undefined);
    });

    it('concurrent draws never hand out more than capacity', async () => {
      const results = await Promise.all(Array.from({ length: 150 }, () => s.store.drawChain([d('send')])));
      expect(results.filter((r) => !r.refused)).to.have.length(100);
    });
  });
}
