// Deliveries first (core/events/dispatcher.ts YIELD_MS, docs/events.md "Delivery"): while the
// sender delivers pushes, its dispatcher serves one destination at a time, and every event still
// arrives; idle, its lanes serve destinations side by side. A real receiver counts the requests
// in flight: it holds each until three are in flight or half a second has passed (less than the
// dispatcher's patience, so no request is set aside as slow).
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { useTestEnv } from '../env/index.js';
import { startEventDispatcher, type EventDispatcher } from '../../core/events/dispatcher.js';
import { addDestination, whsec } from './event-receiver.js';
import { createTestApp } from './fixtures.js';
import { waitFor } from '../support/wait.js';

describe('events: deliveries first', function () {
  this.timeout(60_000);
  let dispatcher: EventDispatcher | undefined;
  let server: Server;
  after(async () => {
    await dispatcher?.stop();
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
  });
  const env = useTestEnv({ redis: false });
  let url = '';
  let inFlight = 0;
  let mostInFlight = 0;
  let events = 0;
  const held: Array<() => void> = [];

  before(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        inFlight++;
        mostInFlight = Math.max(mostInFlight, inFlight);
        const answer = () => {
          clearTimeout(timer);
          held.splice(held.indexOf(answer), 1);
          inFlight--;
          events += (JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown[]).length;
          res.writeHead(204).end();
        };
        const timer = setTimeout(answer, 500);
        held.push(answer);
        if (inFlight >= 3) for (const release of [...held]) release();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
  });

  /** Three apps, each a destination with two records behind it; the dispatcher started with `busy`. */
  const run = async (name: string, busy: boolean) => {
    mostInFlight = 0;
    events = 0;
    for (let i = 0; i < 3; i++) {
      const appId = (await createTestApp(env.pool, `${name}${i}`)).app.id;
      await addDestination(env.pool, appId, 'backend', url, whsec());
      for (let r = 0; r < 2; r++) await env.pool.query(`INSERT INTO event_records (app_id, send_id, kind, body) VALUES ($1, $2, 'notification.created', '{}')`, [appId, r + 1]);
    }
    dispatcher = startEventDispatcher({ pool: env.pool, logger: pino({ level: 'warn' }), httpHosts: ['127.0.0.1'], lanes: 4, idleMs: 50, busy: () => busy });
    await waitFor('every event at the receiver', () => events === 6);
    await dispatcher.stop();
    dispatcher = undefined;
    await env.pool.query('DELETE FROM event_destinations');
    return mostInFlight;
  };

  it('while the sender delivers: one request at a time, and every event arrives', async () => {
    expect(await run('yieldbusy', true)).to.equal(1);
  });

  it('idle: the lanes serve the destinations side by side', async () => {
    expect(await run('yieldidle', false)).to.equal(3);
  });
});
