// Never lost, never a flood (issue 28 point 3), one dispatcher step at a time against a real
// receiver that verifies each request with the `standardwebhooks` library: a 503 with an
// HTTP-date Retry-After, a 429 with seconds, a 500 and then a 200 lose nothing and repeat the same
// webhook-id and body; Retry-After is bounded; a redirect is never followed; a destination failing
// for a day is still tried, turns failing after FAILING_AFTER_MS, and resumes from its place.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { Webhook } from 'standardwebhooks';
import { useTestEnv } from '../env/index.js';
import { storeDestinations } from '../../core/events/destinations.js';
import { startEventDispatcher, type EventDispatcher } from '../../core/events/dispatcher.js';
import type { HeraldEvent } from '../../core/events/expand.js';
import { appDestinationHealth, FAILING_AFTER_MS } from '../../core/events/health.js';
import type { AttemptFailure } from '../../core/events/observer.js';
import { createTestApp } from './fixtures.js';
import { whsec } from './event-receiver.js';

interface Answer {
  status: number;
  headers?: Record<string, string>;
}
interface Request {
  webhookId: string;
  ids: string[];
}

describe('events: retries, Retry-After, redirects, failing and recovery', function () {
  this.timeout(60_000);
  const env = useTestEnv({ redis: false });
  const secret = whsec();
  const answers: Answer[] = [];
  const requests: Request[] = [];
  let elsewhere = 0; // requests reaching the redirect's target
  let server: Server;
  let url: string;
  let dispatcher: EventDispatcher;
  let appId: string;
  const outcomes: Array<number | AttemptFailure> = [];

  before(async () => {
    const webhook = new Webhook(secret);
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        if (req.url === '/elsewhere') {
          elsewhere++;
          return void res.writeHead(204).end();
        }
        const events = webhook.verify(Buffer.concat(chunks).toString('utf8'), req.headers as IncomingHttpHeaders & Record<string, string>) as HeraldEvent[];
        requests.push({ webhookId: String(req.headers['webhook-id']), ids: events.map((e) => e.event.id) });
        const answer = answers.shift() ?? { status: 200 };
        res.writeHead(answer.status, answer.headers ?? {}).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
    // A back-off of 0.1–0.2 s: any longer wait below is Retry-After's.
    dispatcher = startEventDispatcher(
      {
        pool: env.pool,
        logger: pino({ level: 'silent' }),
        httpHosts: ['127.0.0.1'],
        backoff: { baseMs: 200, maxMs: 200 },
        observer: { delivered: (n) => void outcomes.push(n), failed: (kind) => void outcomes.push(kind) },
      },
      false,
    );
  });
  after(async () => {
    await dispatcher?.stop();
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
  });
  beforeEach(async () => {
    answers.length = 0;
    requests.length = 0;
    outcomes.length = 0;
    elsewhere = 0;
    // One destination in the database at a time: an earlier case's destination whose back-off has
    // run out would otherwise be the one a step claims (the oldest due), on a slow machine.
    await env.pool.query('DELETE FROM event_destinations');
    appId = (await createTestApp(env.pool, `evretry${Math.floor(Math.random() * 1e9)}`)).app.id;
    await storeDestinations(env.pool, appId, [{ name: 'backend', url, secretRef: { name: 'unused', key: 'unused' }, secret }]);
  });

  const record = async (devices: number): Promise<string> =>
    (await env.pool.query<{ id: string }>(`INSERT INTO event_records (app_id, send_id, kind, body) VALUES ($1, 1, 'chunk', $2) RETURNING id::text`, [
      appId,
      JSON.stringify({ chunk: 0, s: Array.from({ length: devices }, () => randomUUID()), f: [], u: [] }),
    ])).rows[0].id;
  const row = async () =>
    (await env.pool.query(
      `SELECT delivered_through::text, attempts, last_error, failing_since IS NOT NULL AS "failingSince", extract(epoch FROM retry_at - clock_timestamp())::float8 AS wait
         FROM event_destinations WHERE app_id = $1`,
      [appId],
    )).rows[0];
  /** The back-off (or Retry-After) has passed: what the clock would do, without a test waiting minutes. */
  const elapse = () => env.pool.query('UPDATE event_destinations SET retry_at = clock_timestamp() WHERE app_id = $1', [appId]);

  it('503 with an HTTP-date Retry-After, 429 with seconds, 500, then 200: waits as asked, the same webhook-id and events each time, nothing lost', async () => {
    const through = await record(3);
    answers.push(
      { status: 503, headers: { 'retry-after': new Date(Date.now() + 90_000).toUTCString() } },
      { status: 429, headers: { 'retry-after': '120' } },
      { status: 500, headers: { 'retry-after': '3000' } }, // a 500's Retry-After is not a request to wait
      { status: 200 },
    );
    expect(await dispatcher.step()).to.equal(true);
    let r = await row();
    expect(r).to.include({ attempts: 1, last_error: 'HTTP 503', failingSince: true });
    expect(r.wait).to.be.within(80, 91);
    expect(await dispatcher.step()).to.equal(false); // not before its time
    await elapse();
    expect(await dispatcher.step()).to.equal(true);
    r = await row();
    expect(r).to.include({ attempts: 2, last_error: 'HTTP 429' });
    expect(r.wait).to.be.within(110, 121);
    await elapse();
    expect(await dispatcher.step()).to.equal(true);
    r = await row();
    expect(r).to.include({ attempts: 3, last_error: 'HTTP 500' });
    expect(r.wait).to.be.below(1);
    await elapse();
    expect(await dispatcher.step()).to.equal(true);
    expect(await row()).to.include({ delivered_through: through, attempts: 0, last_error: null, failingSince: false, wait: null });
    expect(requests).to.have.length(4);
    expect(new Set(requests.map((q) => q.webhookId)).size).to.equal(1);
    for (const q of requests) expect(q.ids).to.deep.equal(requests[0].ids);
    expect(requests[0].ids).to.have.length(3);
    expect(outcomes).to.deep.equal(['http_503', 'http_429', 'http_5xx', 3]);
  });

  it('Retry-After is bounded: a day asked is an hour waited; a date already past is the back-off alone', async () => {
    await record(1);
    answers.push({ status: 503, headers: { 'retry-after': '86400' } }, { status: 429, headers: { 'retry-after': 'Tue, 24 Nov 2026 12:00:00 GMT' } });
    await dispatcher.step();
    expect((await row()).wait).to.be.within(3590, 3601);
    await elapse();
    await dispatcher.step();
    expect((await row()).wait).to.be.below(1);
  });

  it('a redirect is a failed attempt, never followed', async () => {
    await record(1);
    answers.push({ status: 307, headers: { location: url.replace('/events', '/elsewhere') } });
    await dispatcher.step();
    expect(await row()).to.include({ attempts: 1, last_error: 'HTTP 307 (redirects are not followed)' });
    expect(elsewhere).to.equal(0);
    expect(outcomes).to.deep.equal(['redirect']);
  });

  it('a receiver down for a day is still tried (the wait stays at the cap), is failing, and resumes from its place with what it missed', async () => {
    const first = await record(2);
    expect(await dispatcher.step()).to.equal(true); // delivered: its place is past the first record
    const missed = [await record(2), await record(3)];
    answers.push({ status: 500 });
    await dispatcher.step();
    expect((await appDestinationHealth(env.pool, appId))[0]).to.include({ state: 'retrying', attempts: 1, lastError: 'HTTP 500', backlogRecords: 2 });
    // A day of failures: 500 attempts, failing since 25 hours ago.
    await env.pool.query(`UPDATE event_destinations SET attempts = 500, failing_since = clock_timestamp() - interval '25 hours' WHERE app_id = $1`, [appId]);
    expect((await appDestinationHealth(env.pool, appId))[0]).to.include({ state: 'failing', attempts: 500 });
    await elapse();
    answers.push({ status: 502 });
    expect(await dispatcher.step()).to.equal(true);
    const r = await row();
    expect(r).to.include({ attempts: 501, delivered_through: first, failingSince: true, last_error: 'HTTP 502' });
    expect(r.wait).to.be.below(1); // this test's cap; DEFAULT_EVENT_BACKOFF's is 10 minutes: never given up
    await elapse();
    expect(await dispatcher.step()).to.equal(true); // recovered
    expect(await row()).to.include({ attempts: 0, delivered_through: missed[1], failingSince: false, last_error: null });
    expect((await appDestinationHealth(env.pool, appId))[0]).to.include({ state: 'delivering', backlogRecords: 0 });
    // What it missed, in order, from where it stopped: the two records behind the first (2 + 3 events).
    expect(requests.map((q) => q.ids.length)).to.deep.equal([2, 5, 5, 5]);
    expect(requests[3].ids).to.deep.equal(requests[1].ids);
  });

  it('a destination turns failing after FAILING_AFTER_MS of failed attempts, not before', async () => {
    await record(1);
    answers.push({ status: 500 });
    await dispatcher.step();
    const at = async (agoMs: number) => {
      await env.pool.query(`UPDATE event_destinations SET failing_since = clock_timestamp() - make_interval(secs => $2::float8 / 1000) WHERE app_id = $1`, [appId, agoMs]);
      return (await appDestinationHealth(env.pool, appId))[0].state;
    };
    expect(await at(FAILING_AFTER_MS - 5_000)).to.equal('retrying');
    expect(await at(FAILING_AFTER_MS)).to.equal('failing');
  });
});
