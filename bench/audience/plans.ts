// The audience conditions at 1,000,000 installs of one app (--installs): the estimate's count for a
// segment, a tag, several AND-ed filters, OR-ed groups, and excluded_segments, each timed
// (--rounds, p50 / max) and with its plan (EXPLAIN ANALYZE), one JSON line per kind. The SQL is
// the code's own (core/audience/measure.ts). Figures: docs/benchmarks.md "Audience plans".
//
//   npx tsx bench/audience/plans.ts [--installs 1000000] [--rounds 5]
import { parseArgs } from 'node:util';
import { seededAudience } from './seed.js';
import { getApp } from '../../core/apps/app-store.js';
import { measureAudience } from '../../core/audience/measure.js';
import { audienceCondition, Params } from '../../core/audience/filter.js';
import type { SendTarget } from '../../core/send-model/request.js';

const { values } = parseArgs({ options: { installs: { type: 'string', default: '1000000' }, rounds: { type: 'string', default: '5' } } });
const INSTALLS = Number(values.installs);
const ROUNDS = Number(values.rounds);

const { pool, appId } = await seededAudience(INSTALLS);
const app = (await getApp(pool, appId))!;

const kinds: Record<string, SendTarget> = {
  'segment Subscribed Users': { kind: 'segment', segment: 'Subscribed Users' },
  'tag level > 90': { kind: 'tag', tag: { key: 'level', relation: '>', value: '90' } },
  'filters: level > 50 AND language = en AND last_session < 24 h': {
    kind: 'filters',
    groups: [[{ field: 'tag', key: 'level', relation: '>', value: '50' }, { field: 'language', relation: '=', value: 'en' }, { field: 'last_session', relation: '<', hoursAgo: 24 }]],
  },
  'filters: plan = gold OR language = de': { kind: 'filters', groups: [[{ field: 'tag', key: 'plan', relation: '=', value: 'gold' }], [{ field: 'language', relation: '=', value: 'de' }]] },
  'segment Active Users excluding Gold': { kind: 'segment', segment: 'Active Users', excluding: ['Gold'] },
};
for (const [kind, target] of Object.entries(kinds)) {
  const times: number[] = [];
  let estimate = 0;
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = performance.now();
    estimate = (await measureAudience(pool, app, target)).estimate;
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const params = new Params([app.id]);
  const condition = audienceCondition(app, target, params);
  const plan = (await pool.query(`EXPLAIN ANALYZE SELECT count(*) FROM subscriptions s WHERE s.app_id = $1 AND s.subscribed AND ${condition}`, params.values)).rows.map((r) => r['QUERY PLAN'].trim());
  console.log(JSON.stringify({ installs: INSTALLS, kind, estimate, p50Ms: Math.round(times[Math.floor(times.length / 2)]), maxMs: Math.round(times[times.length - 1]), plan: plan.filter((l) => /Scan|Aggregate|Execution/.test(l)).slice(0, 4) }));
}
await pool.end();
