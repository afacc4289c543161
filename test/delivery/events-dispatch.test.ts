// The event dispatcher's failures after it claims a destination (issue 28 review), one step at a
// time against a real receiver: a signing secret that does not open is a failed attempt (counted,
// backed off, its error on the row), not a lease held and lost every minute; record ids past 2^31
// (bigint) are read and delivered; a record that cannot be expanded is passed over and logged,
// and the destination moves on to the records behind it.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { useTestEnv } from '../env/index.js';
import { storeDestinations } from '../../core/events/destinations.js';
import { startEventDispatcher, type EventDispatcher } from '../../core/events/dispatcher.js';
import type { HeraldEvent } from '../../core/events/expand.js';
import { createTestApp } from './fixtures.js';

describe('events: the dispatcher after a claim', function () {
  this.timeout(60_000);
  const env = useTestEnv();
  let server: Server;
  let url: string;
  const received: HeraldEvent[][] = [];
  const logs: Array<Record<string, unknown>> = [];
  let dispatcher: EventDispatcher;
  let appId: string;

  before(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
    const logger = pino({ level: 'warn' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
    dispatcher = startEventDispatcher({ pool: env.pool, logger, httpHosts: ['127.0.0.1'], backoff: { baseMs: 60_000, maxMs: 60_000 } }, false);
  });
  after(async () => {
    await dispatcher?.stop();
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
  });
  beforeEach(async () => {
    received.length = 0;
    logs.length = 0;
    appId = (await createTestApp(env.pool, `evdispatch${Math.floor(Math.random() * 1e9)}`)).app.id;
    await storeDestinations(env.pool, appId, [{ name: 'backend', url, secretRef: { name: 'unused', key: 'unused' }, secret: `whsec_${Buffer.alloc(32, 9).toString('base64')}` }]);
  });
  afterEach(async () => {
    await env.pool.query('DELETE FROM event_destinations WHERE app_id = $1', [appId]);
  });

  const record = async (kind: string, body: unknown, sendId = 1): Promise<string> =>
    (await env.pool.query<{ id: string }>('INSERT INTO event_records (app_id, send_id, kind, body) VALUES ($1, $2, $3, $4) RETURNING id::text', [appId, sendId, kind, JSON.stringify(body)])).rows[0].id;
  const row = async () =>
    (await env.pool.query('SELECT delivered_through::text, delivered_offset, attempts, last_error, retry_at > now() AS "backedOff", failing_since IS NOT NULL AS failing FROM event_destinations WHERE app_id = $1', [appId])).rows[0];

  it('a signing secret that does not open: the attempt is counted, backed off and its error kept; the next step leaves it alone', async () => {
    await env.pool.query(`UPDATE event_destinations SET secret = $2 WHERE app_id = $1`, [appId, Buffer.from('HS2abc')]);
    await record('notification.created', {});
    expect(await dispatcher.step()).to.equal(true);
    expect(await row()).to.deep.include({ attempts: 1, backedOff: true, failing: true });
    expect((await row()).last_error).to.equal('a stored secret is cut short: it cannot be opened');
    expect(received).to.have.length(0);
    expect(await dispatcher.step()).to.equal(false); // backed off: not claimed again at once
  });

  it('a record that cannot be expanded is passed over and logged; the records behind it are delivered', async () => {
    const bad = await record('chunk', { chunk: 0, s: 'not a list', f: [], u: [] });
    const alsoBad = await record('notification.exploded', {});
    const good = await record('chunk', { chunk: 1, s: [randomUUID()], f: [], u: [] });
    expect(await dispatcher.step()).to.equal(true);
    expect(received.flat().map((e) => e.event.kind)).to.deep.equal(['message.push.sent']);
    expect(await row()).to.deep.include({ delivered_through: good, delivered_offset: 0, attempts: 0 });
    const logged = logs.find((l) => l.msg === 'event records that cannot be expanded were passed over');
    expect(logged).to.include({ app: appId, destination: 'backend' });
    expect(logged!.records).to.deep.equal([Number(bad), Number(alsoBad)]);
  });

  it('records are read in the order of their ids, not of their text (999 before 1000)', async () => {
    await env.pool.query(`SELECT setval(pg_get_serial_sequence('event_records', 'id'), 998)`);
    expect(await record('notification.created', {}, 7)).to.equal('999');
    expect(await record('notification.finished', {}, 7)).to.equal('1000');
    expect(await dispatcher.step()).to.equal(true);
    expect(received.flat().map((e) => e.event.kind)).to.deep.equal(['notification.created', 'notification.finished']);
    expect(await row()).to.deep.include({ delivered_through: '1000', delivered_offset: 0 });
  });

  it('a place inside a record that retention has since deleted: the next record is delivered whole', async () => {
    const gone = await record('chunk', { chunk: 0, s: [randomUUID(), randomUUID()], f: [], u: [] });
    const next = await record('chunk', { chunk: 1, s: [randomUUID(), randomUUID()], f: [], u: [] });
    await env.pool.query('UPDATE event_destinations SET delivered_through = $2, delivered_offset = 1 WHERE app_id = $1', [appId, Number(gone) - 1]);
    await env.pool.query('DELETE FROM event_records WHERE id = $1', [gone]);
    expect(await dispatcher.step()).to.equal(true);
    expect(received.flat().map((e) => e.event.kind)).to.deep.equal(['message.push.sent', 'message.push.sent']);
    expect(await row()).to.deep.include({ delivered_through: next, delivered_offset: 0 });
  });

  it('record and send ids past 2^31 are read and delivered', async () => {
    await env.pool.query(`SELECT setval(pg_get_serial_sequence('event_records', 'id'), 2147483657)`);
    const id = await record('notification.created', {}, 2147483648 + 5);
    expect(BigInt(id) > 2n ** 31n).to.equal(true);
    expect(await dispatcher.step()).to.equal(true);
    expect(received).to.have.length(1);
    expect(received[0].map((e) => [e.event.kind, e.message?.id])).to.deep.equal([['notification.created', '2147483653']]);
    expect(await row()).to.deep.include({ delivered_through: id, delivered_offset: 0, attempts: 0, last_error: null });
  });
});
