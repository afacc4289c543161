// The events page's read (core/dashboard-reads/app-events.ts) against the real database: pages of
// EVENTS_PAGE events newest first across many small records (its read rounds) and inside a large
// one, the exact edge (a page filled at a record's end), a record that cannot be expanded passed
// over, and another app's records never read.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { EVENTS_PAGE, latestEvents, type EventCursor } from '../../core/dashboard-reads/app-events.js';
import { createTestApp } from '../delivery/fixtures.js';

describe('dashboard: an app\'s latest events, a page at a time', () => {
  const env = useTestEnv();

  const app = async (name: string) => (await createTestApp(env.pool, `${name}${Math.floor(Math.random() * 1e9)}`)).app.id;
  /** `n` notification.created records of send 1, 2, …, n (oldest first). */
  const records = async (appId: string, n: number, from = 1) => {
    for (let i = 0; i < n; i++) {
      await env.pool.query(`INSERT INTO event_records (app_id, send_id, kind, body) VALUES ($1, $2, 'notification.created', '{}')`, [appId, from + i]);
    }
  };
  const all = async (appId: string) => {
    const pages: string[][] = [];
    let cursor: EventCursor | undefined;
    do {
      const page = await latestEvents(env.pool, appId, cursor);
      pages.push(page.events.map((e) => e.message!.id));
      cursor = page.next;
    } while (cursor && pages.length < 10);
    return pages;
  };
  const sends = (from: number, to: number) => Array.from({ length: from - to + 1 }, (_, i) => String(from - i));

  it('pages many small records newest first, passing over one that cannot be expanded', async () => {
    const a = await app('evpages');
    await records(a, 30);
    await env.pool.query(`INSERT INTO event_records (app_id, send_id, kind, body) VALUES ($1, 99, 'chunk', '{"s": "not a list"}')`, [a]);
    await records(a, 25, 31);
    expect(await all(a)).to.deep.equal([sends(55, 6), sends(5, 1)]);
  });

  it(`a page filled at the oldest record's end (exactly ${EVENTS_PAGE} events) is the last one: no next page to an empty one; one record more, and there is`, async () => {
    const a = await app('evexact');
    await records(a, EVENTS_PAGE);
    expect(await all(a)).to.deep.equal([sends(EVENTS_PAGE, 1)]);
    const c = await app('evmore');
    await records(c, EVENTS_PAGE + 1);
    expect(await all(c)).to.deep.equal([sends(EVENTS_PAGE + 1, 2), ['1']]);
    const b = await app('evone');
    await records(b, EVENTS_PAGE - 1);
    expect(await all(b)).to.deep.equal([sends(EVENTS_PAGE - 1, 1)]);
  });

  it("pages inside a large record, and never reads another app's records", async () => {
    const a = await app('evchunk');
    const other = await app('evother');
    await records(other, 3, 500);
    await records(a, 1, 7);
    const ids = Array.from({ length: 120 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    await env.pool.query(`INSERT INTO event_records (app_id, send_id, kind, body) VALUES ($1, 8, 'chunk', $2)`, [a, JSON.stringify({ chunk: 0, s: ids, f: [], u: [] })]);
    await records(other, 3, 600);
    const pages = await all(a);
    expect(pages.map((p) => p.length)).to.deep.equal([50, 50, 21]);
    expect(pages.flat()).to.deep.equal([...Array(120).fill('8'), '7']);
    const first = await latestEvents(env.pool, a);
    expect(first.events.map((e) => e.subscription!.id)).to.deep.equal(ids.slice(0, 50));
    const second = await latestEvents(env.pool, a, first.next);
    expect(second.events.map((e) => e.subscription!.id)).to.deep.equal(ids.slice(50, 100));
  });

  it('names the platform of each install in its events, as the dispatcher does (issue 39 point 6)', async () => {
    const a = await app('evplatform');
    const installs = await env.pool.query<{ id: string; platform: string }>(
      `INSERT INTO subscriptions (id, app_id, token, platform) VALUES (gen_random_uuid(), $1, 'ev-ios', 'ios'), (gen_random_uuid(), $1, 'ev-android', 'android') RETURNING id::text, platform`, [a]);
    await env.pool.query(`INSERT INTO event_records (app_id, send_id, kind, body) VALUES ($1, 9, 'chunk', $2)`, [a, JSON.stringify({ chunk: 0, s: installs.rows.map((r) => r.id), f: [], u: [] })]);
    const { events } = await latestEvents(env.pool, a);
    const expected = Object.fromEntries(installs.rows.map((r) => [r.id, r.platform === 'android' ? 'Android' : 'iOS']));
    expect(Object.fromEntries(events.map((e) => [e.subscription!.id, e.event.subscription_device_type]))).to.deep.equal(expected);
  });
});
