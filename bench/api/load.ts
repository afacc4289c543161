// The load generator of bench/api, in its own process so it never shares an event loop with the
// api being measured. Reads one JSON job from argv, runs autocannon against every url at once
// (one instance per api process), prints one JSON line with the combined figures.
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { playerToken } from '../players/player-token.js';

interface Job {
  urls: string[];
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path per request: a fixed one, or one of `paths` in turn. */
  paths: string[];
  body?: string;
  keys: string[];
  ips: string[];
  connections: number;
  duration: number;
  /**
   * POST /players as the SDK makes them (bench/players): no key (an empty `keys`), and per request
   * a body of its own, every `knownEvery`-th with a token of the `known` imported ones
   * (player-token.ts), the others a token never seen.
   */
  players?: { appId: string; known: number; knownEvery: number; v5?: boolean };
}

interface CannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodeStats: Record<string, { count: number }>;
}

const require = createRequire(import.meta.url);
// autocannon ships no types; the fields used are listed in CannonResult.
const autocannon = require('autocannon') as (opts: Record<string, unknown>) => Promise<CannonResult>;

const job = JSON.parse(process.argv[2]!) as Job;
let n = 0;
const results = await Promise.all(
  job.urls.map((url) =>
    autocannon({
      url,
      connections: job.connections,
      duration: job.duration,
      requests: [
        {
          method: job.method,
          path: job.paths[0],
          body: job.body,
          headers: { 'content-type': 'application/json' },
          // Rotate keys, caller addresses and paths so no bucket refuses (many keys, many IPs).
          setupRequest(req: Record<string, unknown>) {
            const i = n++;
            const headers: Record<string, string> = { ...(req.headers as Record<string, string>), 'x-forwarded-for': job.ips[i % job.ips.length] };
            if (job.keys.length) headers.authorization = `Key ${job.keys[i % job.keys.length]}`;
            const p = job.players;
            const token = p && (i % p.knownEvery === 0 ? playerToken(i % p.known) : randomBytes(32).toString('hex'));
            // v5: the same registration through POST /apps/{app_id}/subscriptions, for comparison.
            const body = !p ? req.body
              : p.v5 ? JSON.stringify({ token, language: 'en', timezone: 'Etc/GMT-1' })
              : JSON.stringify({ app_id: p.appId, device_type: 0, identifier: token, language: 'en', timezone: 3600, game_version: '1.0', sdk: '031500' });
            return { ...req, body, path: job.paths[i % job.paths.length], headers };
          },
        },
      ],
    }),
  ),
);
// Per-process latency percentiles are combined as the worse of the two (no raw histogram here).
const out = {
  rps: results.reduce((s, r) => s + r.requests.average, 0),
  total: results.reduce((s, r) => s + r.requests.total, 0),
  p50: Math.max(...results.map((r) => r.latency.p50)),
  p99: Math.max(...results.map((r) => r.latency.p99)),
  non2xx: results.reduce((s, r) => s + r.non2xx, 0),
  errors: results.reduce((s, r) => s + r.errors + r.timeouts, 0),
  statuses: results.reduce<Record<string, number>>((acc, r) => {
    for (const [code, { count }] of Object.entries(r.statusCodeStats ?? {})) acc[code] = (acc[code] ?? 0) + count;
    return acc;
  }, {}),
};
process.stdout.write(`${JSON.stringify(out)}\n`);
