// estimateNotificationRecipients at 1,000,000 installs (--installs) of one app (issue 30 point 2):
// through a real `herald api` process, --rounds calls of POST /notifications/count-unsaved for a
// tag audience (`level > 90`, 90,000 installs: the send's own count, core/audience/measure.ts),
// one after another; prints p50, p99 and max, and checks nothing was recorded (no send).
// Figures: docs/benchmarks.md "Estimate before sending".
//
//   npx tsx bench/audience/estimate.ts [--installs 1000000] [--rounds 100]
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { createKey } from '../../core/apps/keys.js';
import { spawnHerald } from '../support/herald-process.js';
import { seededAudience } from './seed.js';

const { values } = parseArgs({ options: { installs: { type: 'string', default: '1000000' }, rounds: { type: 'string', default: '100' } } });
const INSTALLS = Number(values.installs);
const ROUNDS = Number(values.rounds);

const { pool, url, appId } = await seededAudience(INSTALLS);
const { key } = await createKey(pool, appId, { name: 'bench-estimate', scope: 'read' });
const api = await spawnHerald(['api'], { HERALD_DATABASE_URL: url, HERALD_RATE_LIMITS: 'off', HERALD_STREAM_PREFIX: 'BEST', HERALD_REDIS_PREFIX: 'best:', HERALD_HTTP_PORT: '0' }, /^listening \d+/);
const base = `http://127.0.0.1:${/^listening (\d+)/.exec(api.line)![1]}`;
const sendsBefore = Number((await pool.query('SELECT count(*) FROM sends WHERE app_id = $1', [appId])).rows[0].count);
const body = JSON.stringify({ app_id: appId, filters: [{ field: 'tag', key: 'level', relation: '>', value: '90' }] });
const times: number[] = [];
let count = 0;
try {
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = performance.now();
    const res = await fetch(`${base}/api/v1/notifications/count-unsaved`, { method: 'POST', headers: { Authorization: `Key ${key}`, 'Content-Type': 'application/json' }, body });
    const answer = (await res.json()) as { count: number };
    times.push(performance.now() - t0);
    if (res.status !== 200) throw new Error(`answered ${res.status}: ${JSON.stringify(answer)}`);
    count = answer.count;
  }
} finally {
  api.child.kill('SIGTERM');
}
const sendsAfter = Number((await pool.query('SELECT count(*) FROM sends WHERE app_id = $1', [appId])).rows[0].count);
times.sort((a, b) => a - b);
const at = (q: number) => Math.round(times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)]);
console.log(JSON.stringify({ installs: INSTALLS, rounds: ROUNDS, count, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: Math.round(times[times.length - 1]), sendsRecorded: sendsAfter - sendsBefore, load: loadavg().map((l) => l.toFixed(1)) }));
await pool.end();
