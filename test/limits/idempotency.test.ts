// Idempotent retries against the real PostgreSQL (contract "Idempotency"; DECISIONS "Bodies":
// replay headers). HTTP through an in-process api, plus the guard on its own for the failure and
// lease cases that HTTP cannot provoke.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { PgIdempotencyGuard, KEY_REUSED } from '../../core/idempotency/pg-guard.js';
import { MemoryBucketStore } from '../../core/buckets/memory-store.js';
import { BucketRateLimiter } from '../../api/rate-limit/bucket-limiter.js';
import type { CreatedSend } from '../../core/send-model/response.js';
import { call, listSend, makeApp, randomIp, segmentSend, startApi, type RunningApi, type TestApp, ignoreIdleClientErrorsOnTeardown } from './helpers.js';
import { waitFor } from '../support/wait.js';

const env = useTestEnv();
ignoreIdleClientErrorsOnTeardown(env);
const newKey = () => `k-${randomBytes(6).toString('hex')}`;
const sendCount = async (appId: string) => Number((await env.pool.query('SELECT count(*) FROM sends WHERE app_id = $1', [appId])).rows[0].count);

describe('idempotent retries over HTTP (PostgreSQL)', function () {
  this.timeout(60_000);
  let api: RunningApi;
  let t: TestApp;
  let clockOffsetMs = 0;
  let frozenBucketsAt: number | undefined;

  // The guard's own queries, seen: a repeat is known to be waiting on a running first call when
  // its poll of the key's state has been made (not after a sleep that may or may not be enough).
  const guardQueries: Array<{ text: string; values: unknown[] }> = [];
  const observedPool = () => new Proxy(env.pool, {
    get(target, prop, receiver) {
      if (prop !== 'query') return Reflect.get(target, prop, receiver);
      return (text: string, values: unknown[] = []) => {
        guardQueries.push({ text, values });
        return target.query(text, values);
      };
    },
  });

  before(async () => {
    const guard = new PgIdempotencyGuard(observedPool(), { clock: () => new Date(Date.now() + clockOffsetMs) });
    api = await startApi(env, { idempotency: guard, rateLimiter: new BucketRateLimiter(new MemoryBucketStore({ clock: () => frozenBucketsAt ?? Date.now() }), 'idem:') });
    t = await makeApp(env.pool, { keyCount: 1, devices: 3 });
  });
  after(async () => { await api?.close(); });

  const post = (body: unknown, headers: Record<string, string> = {}, key = t.keys[0]) =>
    call(api.url, 'POST', '/api/v1/notifications', { key, body, headers, ip: randomIp() });

  it('sends once; a repeat with the same body replays the first answer with both replay headers', async () => {
    const key = newKey();
    const before = await sendCount(t.app.id);
    const first = await post(listSend(t), { 'Idempotency-Key': key });
    expect(first.status).to.equal(200);
    expect(first.headers.get('idempotent-replay')).to.equal(null);
    const again = await post(listSend(t), { 'Idempotency-Key': key });
    expect(again.status).to.equal(200);
    expect(again.body).to.deep.equal(first.body);
    expect(again.headers.get('idempotent-replay')).to.equal('true');
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(await sendCount(t.app.id)).to.equal(before + 1);
    const row = await env.pool.query('SELECT send_id, state, expires_at - now() > interval \'23 hours 59 minutes\' AS kept FROM idempotency_keys WHERE key = $1', [key]);
    expect(row.rows[0]).to.deep.include({ send_id: first.body.id, state: 'done', kept: true });
  });

  it('the key in the header and the same key in the body are the same request', async () => {
    const key = newKey();
    const first = await post(listSend(t), { 'Idempotency-Key': key });
    const again = await post(listSend(t, { idempotency_key: key }));
    expect(again.status).to.equal(200);
    expect(again.body.id).to.equal(first.body.id);
    expect(again.headers.get('idempotent-replay')).to.equal('true');
    const both = await post(listSend(t, { idempotency_key: key }), { 'Idempotency-Key': key });
    expect(both.body.id).to.equal(first.body.id);
  });

  it('object key order is ignored; list order is kept; another body is 422', async () => {
    const key = newKey();
    const ids = t.subscriptionIds.slice(0, 2);
    const body = { app_id: t.app.id, contents: { en: 'hi', fr: 'salut' }, include_subscription_ids: ids, data: { a: '1', b: '2' } };
    const first = await post(body, { 'Idempotency-Key': key });
    expect(first.status).to.equal(200);
    const reordered = { data: { b: '2', a: '1' }, include_subscription_ids: ids, contents: { fr: 'salut', en: 'hi' }, app_id: t.app.id };
    const same = await post(reordered, { 'Idempotency-Key': key });
    expect(same.body.id).to.equal(first.body.id);
    const listFlipped = await post({ ...body, include_subscription_ids: [...ids].reverse() }, { 'Idempotency-Key': key });
    expect(listFlipped.status).to.equal(422);
    expect(listFlipped.body.errors).to.deep.equal([KEY_REUSED]);
    const other = await post({ ...body, contents: { en: 'bye' } }, { 'Idempotency-Key': key });
    expect(other.status).to.equal(422);
    expect(other.body.errors).to.deep.equal(['This idempotency key was already used with a different request.']);
  });

  it('checks the key itself with the contract\'s messages', async () => {
    const cases: [string, Record<string, unknown>, Record<string, string>, string][] = [
      ['header too long', {}, { 'Idempotency-Key': 'a'.repeat(81) }, 'Use a short idempotency key: letters, numbers, dot, or dash.'],
      ['bad characters', { idempotency_key: 'a b/c' }, {}, 'Use a short idempotency key: letters, numbers, dot, or dash.'],
      ['not a string', { idempotency_key: 42 }, {}, 'idempotency_key is a string.'],
      ['header and body differ', { idempotency_key: 'one' }, { 'Idempotency-Key': 'two' }, 'The Idempotency-Key header and idempotency_key differ. Send one key.'],
    ];
    const before = await sendCount(t.app.id);
    for (const [name, extra, headers, message] of cases) {
      const a = await post(listSend(t, extra), headers);
      expect(a.status, name).to.equal(422);
      expect(a.body.errors, name).to.include(message);
    }
    expect((await post(listSend(t), { 'Idempotency-Key': `${'a'.repeat(77)}_.-` })).status).to.equal(200);
    expect(await sendCount(t.app.id)).to.equal(before + 1);
  });

  it('keys are per app: the same key on two apps is two sends', async () => {
    const key = newKey();
    const u = await makeApp(env.pool);
    const a = await post(listSend(t), { 'Idempotency-Key': key });
    const b = await post(listSend(u), { 'Idempotency-Key': key }, u.keys[0]);
    expect(a.status).to.equal(200);
    expect(b.status).to.equal(200);
    expect(b.body.id).to.not.equal(a.body.id);
    expect(b.headers.get('idempotent-replay')).to.equal(null);
  });

  it('a segment send replays its first 202 queued, not its progress', async () => {
    const key = newKey();
    const first = await post(segmentSend(t), { 'Idempotency-Key': key });
    expect(first.status).to.equal(202);
    expect(first.body.status).to.equal('queued');
    await env.pool.query(`UPDATE sends SET status = 'approved', sent = 3, finished_at = now() WHERE id = $1`, [first.body.id]);
    const again = await post(segmentSend(t), { 'Idempotency-Key': key });
    expect(again.status).to.equal(202);
    expect(again.body).to.deep.equal(first.body);
  });

  it('replays count against the buckets', async () => {
    const key = newKey();
    const ip = randomIp();
    frozenBucketsAt = Date.now(); // no refill between the two calls
    try {
      const first = await call(api.url, 'POST', '/api/v1/notifications', { key: t.keys[0], ip, body: listSend(t), headers: { 'Idempotency-Key': key } });
      const remaining = Number(first.headers.get('ratelimit-remaining'));
      const again = await call(api.url, 'POST', '/api/v1/notifications', { key: t.keys[0], ip, body: listSend(t), headers: { 'Idempotency-Key': key } });
      expect(again.headers.get('idempotent-replay')).to.equal('true');
      expect(Number(again.headers.get('ratelimit-remaining'))).to.be.below(remaining);
      expect(again.headers.get('ratelimit-policy')).to.include('name="send"');
    } finally {
      frozenBucketsAt = undefined;
    }
  });

  it('after 24 hours the key is free: a call with it is a new send', async () => {
    const key = newKey();
    const first = await post(listSend(t), { 'Idempotency-Key': key });
    clockOffsetMs = 24 * 3600_000 - 60_000;
    try {
      expect((await post(listSend(t), { 'Idempotency-Key': key })).body.id).to.equal(first.body.id);
      clockOffsetMs = 24 * 3600_000 + 1_000;
      const later = await post(listSend(t, { contents: { en: 'a day later' } }), { 'Idempotency-Key': key });
      expect(later.status).to.equal(200);
      expect(later.body.id).to.not.equal(first.body.id);
      expect(later.headers.get('idempotent-replay')).to.equal(null);
    } finally {
      clockOffsetMs = 0;
    }
  });

  it('a repeat while the first is still running waits 5 s, then 409 with Retry-After: 1 and nothing sent', async function () {
    this.timeout(30_000);
    const key = newKey();
    const before = await sendCount(t.app.id);
    // Hold the outbox so the first call claims the key, then blocks inside its send's transaction.
    const lock = await env.pool.connect();
    try {
      await lock.query('BEGIN');
      await lock.query('LOCK TABLE outbox IN EXCLUSIVE MODE');
      const first = post(listSend(t), { 'Idempotency-Key': key });
      await waitFor(`the claim of key ${key}`, async () => (await env.pool.query('SELECT 1 FROM idempotency_keys WHERE key = $1', [key])).rowCount === 1, 10_000, 20);
      const started = Date.now();
      const repeat = await post(listSend(t), { 'Idempotency-Key': key });
      expect(Date.now() - started).to.be.at.least(4_900); // lower bound only
      expect(repeat.status).to.equal(409);
      expect(repeat.headers.get('retry-after')).to.equal('1');
      expect(repeat.headers.get('ratelimit-limit')).to.be.a('string');
      // A different body is refused at once, even while the first runs.
      expect((await post(listSend(t, { contents: { en: 'other' } }), { 'Idempotency-Key': key })).status).to.equal(422);
      await lock.query('COMMIT');
      const done = await first;
      expect(done.status).to.equal(200);
      expect(await sendCount(t.app.id)).to.equal(before + 1);
      // A repeat that arrives while the first is running and finishing within 5 s gets the replay.
      const key2 = newKey();
      await lock.query('BEGIN');
      await lock.query('LOCK TABLE outbox IN EXCLUSIVE MODE');
      const first2 = post(listSend(t), { 'Idempotency-Key': key2 });
      await waitFor(`the claim of key ${key2}`, async () => (await env.pool.query('SELECT 1 FROM idempotency_keys WHERE key = $1', [key2])).rowCount === 1, 10_000, 20);
      const repeat2 = post(listSend(t), { 'Idempotency-Key': key2 });
      await waitFor(`the repeat of key ${key2} polling the running first call`, async () =>
        guardQueries.some((q) => q.text.startsWith('SELECT fingerprint, state, response') && q.values[1] === key2), 10_000, 10);
      await lock.query('COMMIT');
      const [a, b] = await Promise.all([first2, repeat2]);
      expect(b.status).to.equal(200);
      expect(b.body).to.deep.equal(a.body);
      expect(b.headers.get('idempotent-replay')).to.equal('true');
      expect(await sendCount(t.app.id)).to.equal(before + 2);
    } finally {
      await lock.query('ROLLBACK').catch(() => undefined);
      lock.release();
    }
  });
});

describe('idempotency guard (PostgreSQL)', () => {
  let t: TestApp;
  before(async () => { t = await makeApp(env.pool); });

  /** A stand-in for createSend: records a send row and calls the hook in one transaction. */
  const fakeCreate = (appId: string, opts: { failBefore?: boolean; failAfterHook?: boolean } = {}) =>
    async (hook: (db: import('../../core/store/db.js').PoolClient, created: CreatedSend) => Promise<void>): Promise<CreatedSend> => {
      if (opts.failBefore) throw new Error('audience query failed');
      const db = await env.pool.connect();
      try {
        await db.query('BEGIN');
        const res = await db.query(`INSERT INTO sends (app_id, target_kind, request, status) VALUES ($1, 'subscription_ids', '{}', 'sending') RETURNING id`, [appId]);
        const created: CreatedSend = { httpStatus: 200, body: { id: res.rows[0].id, status: 'sending', sent: 0, failed: 0, skipped: 0, estimate: 1, message: '' } };
        await hook(db, created);
        if (opts.failAfterHook) throw new Error('commit failed');
        await db.query('COMMIT');
        return created;
      } catch (error) {
        await db.query('ROLLBACK');
        throw error;
      } finally {
        db.release();
      }
    };

  it('a first call that failed before recording anything frees its key', async () => {
    const guard = new PgIdempotencyGuard(env.pool);
    const key = newKey();
    let failure: unknown;
    try { await guard.run(t.app.id, key, { a: 1 }, fakeCreate(t.app.id, { failBefore: true })); } catch (error) { failure = error; }
    expect(String(failure)).to.include('audience query failed');
    expect((await env.pool.query('SELECT 1 FROM idempotency_keys WHERE key = $1', [key])).rowCount).to.equal(0);
    const next = await guard.run(t.app.id, key, { a: 2 }, fakeCreate(t.app.id));
    expect(next.replayed).to.equal(false);
  });

  it('a failure inside the send transaction rolls back the key with the send', async () => {
    const guard = new PgIdempotencyGuard(env.pool);
    const key = newKey();
    const before = await sendCount(t.app.id);
    let failed = false;
    try { await guard.run(t.app.id, key, { a: 1 }, fakeCreate(t.app.id, { failAfterHook: true })); } catch { failed = true; }
    expect(failed).to.equal(true);
    expect(await sendCount(t.app.id)).to.equal(before);
    expect((await env.pool.query('SELECT 1 FROM idempotency_keys WHERE key = $1', [key])).rowCount).to.equal(0);
    expect((await guard.run(t.app.id, key, { a: 1 }, fakeCreate(t.app.id))).replayed).to.equal(false);
  });

  it('a claim abandoned by a crashed process is taken over after the lease; the late owner cannot commit', async () => {
    let now = Date.now();
    const guard = new PgIdempotencyGuard(env.pool, { clock: () => new Date(now), leaseMs: 60_000, waitMs: 200 });
    const key = newKey();
    let release!: () => void;
    const gate = new Promise<void>((r) => { release = r; });
    const slow = guard.run(t.app.id, key, { a: 1 }, async (hook) => { await gate; return fakeCreate(t.app.id)(hook); });
    await waitFor(`the claim of key ${key}`, async () => (await env.pool.query('SELECT 1 FROM idempotency_keys WHERE key = $1', [key])).rowCount === 1, 10_000, 20);
    let conflict: unknown;
    try { await guard.run(t.app.id, key, { a: 1 }, fakeCreate(t.app.id)); } catch (error) { conflict = error; }
    expect((conflict as { status?: number }).status).to.equal(409);
    now += 61_000;
    const before = await sendCount(t.app.id);
    const takeover = await guard.run(t.app.id, key, { a: 1 }, fakeCreate(t.app.id));
    expect(takeover.replayed).to.equal(false);
    release();
    let late: unknown;
    try { await slow; } catch (error) { late = error; }
    expect((late as { status?: number }).status).to.equal(409);
    expect(await sendCount(t.app.id)).to.equal(before + 1);
    const replay = await guard.run(t.app.id, key, { a: 1 }, fakeCreate(t.app.id));
    expect(replay).to.deep.equal({ created: takeover.created, replayed: true });
  });

  it('sweeps keys past their 24 hours', async () => {
    let now = Date.now();
    const guard = new PgIdempotencyGuard(env.pool, { clock: () => new Date(now) });
    const key = newKey();
    await guard.run(t.app.id, key, { a: 1 }, fakeCreate(t.app.id));
    now += 24 * 3600_000 + 1;
    expect(await guard.sweepExpired()).to.be.at.least(1);
    expect((await env.pool.query('SELECT 1 FROM idempotency_keys WHERE key = $1', [key])).rowCount).to.equal(0);
  });
});
