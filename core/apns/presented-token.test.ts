// What one client presents: the source's token held in memory, asked again only when due or after
// Apple called it expired (once per generation), and a source that cannot answer (the database
// out) is said to the caller, never papered over with a token of the process's own.
import { expect } from 'chai';
import type { FleetToken, FleetTokenSource } from '../gateway/fleet-token.js';
import { APNS_TOKEN_POLICY } from '../gateway/fleet-token-policy.js';
import { PresentedToken } from './presented-token.js';

const MINUTE = 60_000;

/** A source handing out `jwt-1`, `jwt-2`… issued at the fake clock, counting what it was asked. */
function fakeSource(clock: { now: number }) {
  let n = 0;
  const asked = { current: 0, renew: 0 };
  let down = false;
  const make = (): FleetToken => ({ value: `jwt-${++n}`, issuedAt: new Date(clock.now), expiresAt: new Date(clock.now + 60 * MINUTE) });
  let held: FleetToken | undefined;
  const source: FleetTokenSource = {
    async current() {
      asked.current++;
      if (down) throw new Error('database unavailable');
      if (!held || clock.now - held.issuedAt.getTime() >= APNS_TOKEN_POLICY.renewAfterMs) held = make();
      return held;
    },
    async renew(stale) {
      asked.renew++;
      if (held && held.value === stale.value) held = make();
      return held as FleetToken;
    },
  };
  return { source, asked, setDown: (d: boolean) => (down = d) };
}

describe('the presented provider token', () => {
  it('holds nothing until ready, then the source\'s token, asking it once while it is not due', async () => {
    const clock = { now: 1_700_000_000_000 };
    const f = fakeSource(clock);
    const t = new PresentedToken(f.source, () => clock.now);
    expect(t.current()).to.equal(undefined);
    await t.ready();
    expect(t.current()).to.deep.equal({ authorization: 'bearer jwt-1', generation: 1 });
    clock.now += 49 * MINUTE;
    await t.ready();
    t.current();
    expect(f.asked.current).to.equal(1);
  });

  it('due at 50 minutes: still presents the old token while it asks, then the new one', async () => {
    const clock = { now: 1_700_000_000_000 };
    const f = fakeSource(clock);
    const t = new PresentedToken(f.source, () => clock.now);
    await t.ready();
    clock.now += 50 * MINUTE;
    expect(t.current()?.authorization).to.equal('bearer jwt-1');
    await t.ready(); // not expired: no wait; the background ask settles with the microtasks
    await new Promise((r) => setImmediate(r));
    expect(t.current()).to.deep.equal({ authorization: 'bearer jwt-2', generation: 2 });
  });

  it('ExpiredProviderToken: one renewal per generation however many answers say so', async () => {
    const clock = { now: 1_700_000_000_000 };
    const f = fakeSource(clock);
    const t = new PresentedToken(f.source, () => clock.now);
    await t.ready();
    await Promise.all([t.invalidate(1), t.invalidate(1), t.invalidate(1)]);
    await t.invalidate(1);
    expect(f.asked.renew).to.equal(1);
    expect(t.current()?.generation).to.equal(2);
  });

  it('a source that cannot answer rejects ready(); an expired token is never presented as if fresh', async () => {
    const clock = { now: 1_700_000_000_000 };
    const f = fakeSource(clock);
    const t = new PresentedToken(f.source, () => clock.now);
    f.setDown(true);
    let error: unknown;
    await t.ready().catch((e) => (error = e));
    expect(error).to.be.instanceOf(Error);
    f.setDown(false);
    await t.ready();
    clock.now += 60 * MINUTE;
    f.setDown(true);
    error = undefined;
    await t.ready().catch((e) => (error = e));
    expect(error, 'past expiry, ready waits on the source').to.be.instanceOf(Error);
  });

  it('due while the source is out: the held token still presented, the source asked once per 10 seconds, not per request', async () => {
    const clock = { now: 1_700_000_000_000 };
    const f = fakeSource(clock);
    const t = new PresentedToken(f.source, () => clock.now);
    await t.ready();
    clock.now += 50 * MINUTE;
    f.setDown(true);
    for (let i = 0; i < 100; i++) expect(t.current()?.authorization).to.equal('bearer jwt-1');
    await new Promise((r) => setImmediate(r));
    for (let i = 0; i < 5; i++) {
      t.current();
      await new Promise((r) => setImmediate(r)); // each failure settled before the next request
    }
    expect(f.asked.current).to.equal(2);
    clock.now += 10_000;
    t.current();
    expect(f.asked.current).to.equal(3);
  });
});
