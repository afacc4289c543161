// Planning a `delayed_option: last-active` send (issue 38 point 4) at `installs` installs of one
// app (the audience benches' seeded app, bench/audience/seed.ts: last_active over 30 days): the
// firing transaction's plan of every subscribed install (core/delivery/last-active.ts), timed per
// round (rolled back, so each round plans afresh), with its chunks and groups. Figures: docs/
// benchmarks.md "Last-active planning".
//
//   npx tsx bench/audience/last-active.ts [--installs 200000] [--rounds 3]
import { parseArgs } from 'node:util';
import { seededAudience } from './seed.js';
import { getApp } from '../../core/apps/app-store.js';
import { measureAudience } from '../../core/audience/measure.js';
import { planLastActive } from '../../core/delivery/last-active.js';
import type { SendRequest } from '../../core/send-model/request.js';

const { values } = parseArgs({ options: { installs: { type: 'string', default: '200000' }, rounds: { type: 'string', default: '3' } } });
const INSTALLS = Number(values.installs);
const ROUNDS = Number(values.rounds);

const { pool, appId } = await seededAudience(INSTALLS);
const app = (await getApp(pool, appId))!;
const req = { target: { kind: 'segment', segment: 'Subscribed Users' }, lastActiveDelivery: true, contents: { en: 'x' } } as unknown as SendRequest;
const times: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  const db = await pool.connect();
  try {
    await db.query('BEGIN');
    const send = await db.query<{ id: number }>(
      `INSERT INTO sends (app_id, target_kind, request, status, total_recipients) VALUES ($1, 'segment', $2, 'scheduled', 0) RETURNING id`,
      [appId, JSON.stringify(req)],
    );
    const t0 = performance.now();
    const measured = await measureAudience(db, app, req.target);
    const plan = await planLastActive(db, app, send.rows[0].id, req, { maxSeq: measured.maxSeq ?? 0, cap: measured.estimate, from: new Date() });
    const ms = performance.now() - t0;
    times.push(ms);
    const groups = (await db.query('SELECT count(DISTINCT not_before)::int AS n, max(planned) AS biggest FROM send_chunks WHERE send_id = $1', [send.rows[0].id])).rows[0];
    console.log(JSON.stringify({ installs: INSTALLS, round: i, planned: plan.planned, chunks: plan.chunks, groups: groups.n, biggestChunk: groups.biggest, ms: Math.round(ms) }));
  } finally {
    await db.query('ROLLBACK');
    db.release();
  }
}
times.sort((a, b) => a - b);
console.log(JSON.stringify({ installs: INSTALLS, p50Ms: Math.round(times[Math.floor(times.length / 2)]), maxMs: Math.round(times[times.length - 1]) }));
await pool.end();
