// fcm-sim's plain HTTP/1.1 control endpoint: counters, received messages, rules at run time,
// revoking the access tokens, reset. JSON in, JSON out (the shape of apns-sim/control.ts).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { TokenIssuer } from './oauth.js';
import type { FcmRecorder } from './recorder.js';
import { validateRules, type FcmSimRule } from './rules.js';

export interface FcmControlTarget {
  recorder: FcmRecorder;
  issuer: TokenIssuer;
  getRules(): FcmSimRule[];
  setRules(rules: FcmSimRule[]): void;
  reset(): void;
}

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
    if (size > 1 << 20) throw new TypeError('body over 1 MB');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? {} : JSON.parse(text);
}

export function createFcmControlServer(target: FcmControlTarget): Server {
  return createServer(async function control(req, res) {
    const url = new URL(req.url ?? '/', 'http://control');
    const route = `${req.method} ${url.pathname}`;
    try {
      switch (route) {
        case 'GET /healthz':
          return send(res, 200, { ok: true });
        case 'GET /stats':
          return send(res, 200, target.recorder.stats(target.issuer.minted));
        case 'GET /deliveries': {
          const all = target.recorder.deliveries(url.searchParams.get('token') ?? undefined);
          const limit = Number(url.searchParams.get('limit') ?? 1000);
          return send(res, 200, { deliveries: all.slice(Math.max(0, all.length - limit)), total: all.length });
        }
        case 'GET /rules':
          return send(res, 200, { rules: target.getRules() });
        case 'POST /rules': {
          const rules = validateRules(await readJson(req));
          target.setRules(rules);
          return send(res, 200, { rules });
        }
        case 'POST /revoke-tokens':
          target.issuer.revokeAll();
          return send(res, 200, { ok: true });
        case 'POST /reset':
          target.reset();
          target.issuer.resetCounts();
          return send(res, 200, { ok: true });
        default:
          return send(res, 404, { errors: [`no route ${route}`] });
      }
    } catch (err) {
      return send(res, 400, { errors: [(err as Error).message] });
    }
  });
}
