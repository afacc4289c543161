// The simulator's plain HTTP/1.1 control endpoint (a second port): read counters and received
// payloads, change the rules at run time, reset. JSON in, JSON out.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Recorder } from './recorder.js';
import { validateRules, type SimRule } from './rules.js';

export interface ControlTarget {
  recorder: Recorder;
  getRules(): SimRule[];
  setRules(rules: SimRule[]): void;
  reset(): void;
  /** A device joins a broadcast channel (ActivityKit's part on a real device); false: no such channel. */
  subscribe(channelId: string, token: string): boolean;
}

const MAX_BODY = 1 << 20;

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new TypeError('body over 1 MB');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? {} : JSON.parse(text);
}

export function createControlServer(target: ControlTarget): Server {
  return createServer(async function control(req, res) {
    const url = new URL(req.url ?? '/', 'http://control');
    const route = `${req.method} ${url.pathname}`;
    try {
      const join = /^POST \/channels\/([^/]+)\/devices$/.exec(route);
      if (join) {
        const body = (await readJson(req)) as { token?: unknown };
        if (typeof body.token !== 'string' || body.token === '') return send(res, 400, { errors: ['token must be a device token'] });
        const channelId = decodeURIComponent(join[1]);
        if (!target.subscribe(channelId, body.token)) return send(res, 404, { errors: [`no channel ${channelId}`] });
        return send(res, 200, { channelId, token: body.token });
      }
      switch (route) {
        case 'GET /healthz':
          return send(res, 200, { ok: true });
        case 'GET /stats': {
          const token = url.searchParams.get('token');
          if (token !== null) return send(res, 200, { token, attempts: target.recorder.attemptsFor(token) });
          return send(res, 200, target.recorder.stats());
        }
        case 'GET /deliveries': {
          const token = url.searchParams.get('token') ?? undefined;
          const channelId = url.searchParams.get('channel') ?? undefined;
          const limit = Number(url.searchParams.get('limit') ?? 1000);
          const since = Number(url.searchParams.get('since') ?? 0); // received at or after, ms since the epoch
          const all = target.recorder.deliveries(token, channelId).filter((d) => d.receivedAt >= since);
          return send(res, 200, { deliveries: all.slice(Math.max(0, all.length - limit)), total: all.length });
        }
        case 'GET /rules':
          return send(res, 200, { rules: target.getRules() });
        case 'POST /rules': {
          const rules = validateRules(await readJson(req));
          target.setRules(rules);
          return send(res, 200, { rules });
        }
        case 'POST /reset':
          target.reset();
          return send(res, 200, { ok: true });
        default:
          return send(res, 404, { errors: [`no route ${route}`] });
      }
    } catch (err) {
      return send(res, 400, { errors: [(err as Error).message] });
    }
  });
}
