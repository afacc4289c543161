// A destination's batches (core/events/batch.ts nextBatch) against the real database: read one
// after another from a destination's place, they give every event of its kinds exactly once, in
// order, as the records expand whole (ids, installs, external ids; an install erased since without
// them), each batch at most the batch size, a malformed record passed over; and each batch looks
// up only the installs of its own events (a round reads up to 52 chunk records, 26,000 installs).
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { INSTALLS_LOOKUP, nextBatch, type Place } from '../../core/events/batch.js';
import { expandRecord, type HeraldEvent, type RecordRow } from '../../core/events/expand.js';
import type { EventKind } from '../../core/events/kinds.js';
import type { Pool } from '../../core/store/db.js';
import { addDevices, createTestApp } from './fixtures.js';

const SIZE = 500;
const LOOKUP = INSTALLS_LOOKUP;

describe('events: a destination\'s batches, one after another from its place', function () {
  this.timeout(60_000);
  const env = useTestEnv({ redis: false });
  let appId: string;
  let first = 0;
  /** Installs looked up by each batch (the lookup's id count). */
  const lookups: number[] = [];
  let counted: Pool;

  before(async () => {
    appId = (await createTestApp(env.pool, 'eventsbatch')).app.id;
    await addDevices(env.pool, appId, 1_500, { prefix: 'b7', externalIdPrefix: 'user-' });
    const ids: string[] = (await env.pool.query('SELECT id::text FROM subscriptions WHERE app_id = $1 ORDER BY seq', [appId])).rows.map((r) => r.id);
    const record = (kind: string, body: unknown) =>
      env.pool.query<{ id: string }>('INSERT INTO event_records (app_id, send_id, kind, body) VALUES ($1, 9, $2, $3) RETURNING id::text', [appId, kind, JSON.stringify(body)]);
    // Three chunks of 500 (sent, failed, refused), a send's life step, a malformed record, a device event.
    const chunk = (from: number) => ({
      chunk: from / 500,
      s: ids.slice(from, from + 480),
      f: ids.slice(from + 480, from + 490).map((id) => [id, 'BadTopic']),
      u: ids.slice(from + 490, from + 500).map((id, i) => [id, 'Unregistered', 1_700_000_000_000 + i]),
    });
    first = Number((await record('notification.created', { status: 'queued', estimate: 1500 })).rows[0].id);
    await record('chunk', chunk(0));
    await record('chunk', chunk(500));
    await record('chunk', { s: 'not a list' });
    await record('chunk', chunk(1000));
    await record('device_events', { d: [['message.push.clicked', ids[7], {}]] });
    // An install erased since its record: its events keep their places, without it.
    await env.pool.query('DELETE FROM subscriptions WHERE id = $1', [ids[3]]);
    counted = new Proxy(env.pool, {
      get(target, prop) {
        if (prop === 'query') return (text: string, values?: unknown[]) => {
          if (text === LOOKUP) lookups.push((values![1] as string[]).length);
          return target.query(text, values);
        };
        const value = Reflect.get(target, prop);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as Pool;
  });

  /** Every event of the app's records, expanded whole, in order: what the batches must add up to. */
  const everyEvent = async (kinds: EventKind[] | null): Promise<HeraldEvent[]> => {
    const rows = (await env.pool.query(`SELECT id::int, app_id AS "appId", send_id::int AS "sendId", kind, body, recorded_at AS "recordedAt" FROM event_records WHERE app_id = $1 ORDER BY id`, [appId])).rows as RecordRow[];
    const installs = new Map((await env.pool.query('SELECT id::text, external_id FROM subscriptions WHERE app_id = $1', [appId])).rows.map((r) => [r.id, r.external_id]));
    return rows
      .filter((r) => Array.isArray((r.body as { s?: unknown }).s) || r.kind !== 'chunk')
      .flatMap((r) => expandRecord(r, installs, 0, { existingOnly: true }))
      .filter((e) => !kinds || kinds.includes(e.event.kind));
  };

  /** The batches from the first record on, as the dispatcher takes them (each accepted). */
  const drain = async (kinds: EventKind[] | null) => {
    lookups.length = 0;
    const batches: HeraldEvent[][] = [];
    let place: Place = { through: first - 1, offset: 0 };
    const poisoned: number[] = [];
    for (let i = 0; i < 50; i++) {
      const batch = await nextBatch(counted, appId, 'backend', place, kinds, SIZE);
      if (!batch) break;
      batches.push(batch.events);
      poisoned.push(...batch.poisoned);
      place = batch.next;
    }
    return { batches, poisoned };
  };

  it('every kind: every event once, in order, 500 a batch, the malformed record passed over', async () => {
    const { batches, poisoned } = await drain(null);
    expect(batches.flat()).to.deep.equal(await everyEvent(null));
    expect(batches.map((b) => b.length)).to.deep.equal([500, 500, 500, 32]); // 1 + 3 × 510 + 1 events
    expect(poisoned).to.have.length(1);
    const erased = batches.flat().filter((e) => e.event.kind === 'message.push.sent')[3];
    expect(erased).to.not.have.property('subscription');
    expect(batches.flat().find((e) => e.event.kind === 'message.push.clicked')!.user).to.deep.equal({ external_id: 'user-8' });
  });

  it('only failures: the batches skip the rest, and still add up to every failure once', async () => {
    const kinds: EventKind[] = ['message.push.failed'];
    const { batches } = await drain(kinds);
    expect(batches.flat()).to.deep.equal(await everyEvent(kinds));
    expect(batches.flat()).to.have.length(60);
  });

  it('looks up only the installs of the events it takes', async () => {
    await drain(null);
    expect(lookups.length).to.be.above(0);
    expect(Math.max(...lookups)).to.be.at.most(SIZE);
    await drain(['message.push.failed']);
    expect(Math.max(...lookups)).to.be.at.most(60);
  });
});
