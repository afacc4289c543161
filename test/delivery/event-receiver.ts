// A webhook receiver for the event stream tests (issue 28): a real HTTP server that verifies each
// request with the `standardwebhooks` library, as docs/events.md tells a team to, and records what
// it took. Shared by the event tests so that each verifies signatures the same way.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { storeDestination } from '../../core/events/destinations.js';
import type { HeraldEvent } from '../../core/events/expand.js';
import type { EventKind } from '../../core/events/kinds.js';
import type { Pool } from '../../core/store/db.js';

export interface Delivery {
  webhookId: string;
  events: HeraldEvent[];
}

export interface Receiver {
  url: string;
  accepted: Delivery[];
  requests: Delivery[];
  badSignatures: number;
  loseHeld(): void;
  close(): Promise<void>;
}

/** A receiver: verifies each request's signature; `answer` decides the status of each (1-based)
 *  request: 'hang' never answers, 'swallow' takes the batch but its 2xx is lost (the connection is
 *  held until `loseHeld` drops it). */
export async function startReceiver(secret: string, answer: (n: number) => number | 'hang' | 'swallow' = () => 200, answerHeaders: Record<string, string> = {}): Promise<Receiver> {
  const webhook = new Webhook(secret);
  const state = { accepted: [] as Delivery[], requests: [] as Delivery[], badSignatures: 0 };
  const hanging: Array<() => void> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let events: HeraldEvent[];
      try {
        events = webhook.verify(body, req.headers as IncomingHttpHeaders & Record<string, string>) as HeraldEvent[];
      } catch {
        state.badSignatures++;
        res.writeHead(400).end();
        return;
      }
      const delivery = { webhookId: String(req.headers['webhook-id']), events };
      state.requests.push(delivery);
      const status = answer(state.requests.length);
      if (status === 'swallow') state.accepted.push(delivery);
      if (status === 'hang' || status === 'swallow') {
        hanging.push(() => res.destroy());
        return;
      }
      if (status >= 200 && status < 300) state.accepted.push(delivery);
      res.writeHead(status, answerHeaders).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`,
    get accepted() {
      return state.accepted;
    },
    get requests() {
      return state.requests;
    },
    get badSignatures() {
      return state.badSignatures;
    },
    loseHeld: () => {
      for (const h of hanging.splice(0)) h();
    },
    close: async () => {
      for (const h of hanging) h();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** A Standard Webhooks signing secret. */
export const whsec = () => `whsec_${randomBytes(32).toString('base64')}`;

/** Adds (or changes) one destination as an applied App would (its secret given, not read from a Secret); the app's others stay. */
export async function addDestination(pool: Pool, appId: string, name: string, url: string, secret: string, kinds?: EventKind[]): Promise<void> {
  await storeDestination(pool, appId, { name, url, kinds, secretRef: { name: 'unused', key: 'unused' }, secret });
}

/** Every event a receiver took, in order. */
export const eventsOf = (ds: Delivery[]): HeraldEvent[] => ds.flatMap((d) => d.events);
export const kindsOf = (ds: Delivery[]): EventKind[] => eventsOf(ds).map((e) => e.event.kind);
