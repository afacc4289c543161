// The dispatcher's lanes while PostgreSQL is away: each lane's every step fails, and the outage is
// said once (a warning), its repeats at debug, not a warning per lane per step (the node tier's
// senders logged two a second, with full stacks, through a 20 s stop). A real pool to a port on
// which nothing listens: every claim is a refused connection.
import { expect } from 'chai';
import { createServer } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { createPool } from '../store/db.js';
import { startEventDispatcher } from './dispatcher.js';
import { waitFor } from '../../test/support/wait.js';

/** A port that was free a moment ago: connecting to it is refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('event dispatcher: PostgreSQL away', () => {
  it('says the outage once however many lanes fail each step, the repeats at debug', async () => {
    const lines: { level: number; msg: string }[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const logger = pino({ level: 'debug' }, sink);
    const pool = createPool(`postgres://nobody@127.0.0.1:${await closedPort()}/none`);
    const dispatcher = startEventDispatcher({ pool, logger, httpHosts: [], lanes: 3, idleMs: 20 });
    try {
      // Three lanes, each failing every 20 ms: many repeats.
      await waitFor('ten failed steps logged', () => (lines.filter((l) => l.level === 20 || l.level === 40).length >= 10 ? true : undefined), 20_000, 20);
    } finally {
      await dispatcher.stop();
      await pool.end();
    }
    const warnings = lines.filter((l) => l.level >= 40);
    expect(warnings.map((l) => l.msg)).to.deep.equal(['PostgreSQL (event dispatch) unavailable; waiting for it to come back']);
  });
});
