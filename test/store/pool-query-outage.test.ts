// pool.query's own failure path (core/store/db.ts ClassifyingPool): a connection that ends in the
// middle of a statement without a word from the server (a network cut, a proxy or pooler going
// away) reaches pool.query through the client's 'error' event, not through its query, as pg's
// plain "Connection terminated unexpectedly". It must still be an outage (isUnavailable), like the
// same failure met by a checked-out client's query.
import { expect } from 'chai';
import net from 'node:net';
import { createPool } from '../../core/store/db.js';
import { isUnavailable } from '../../core/faults/unavailable.js';
import { useTestEnv } from '../env/index.js';

describe('pool.query: a connection cut mid-statement is an outage', () => {
  const env = useTestEnv({ bus: false, redis: false });

  it('rejects with an error isUnavailable() recognises, as a checked-out client does', async function () {
    this.timeout(20_000);
    const target = new URL(env.databaseUrl);
    // A TCP relay to PostgreSQL that the test cuts with a FIN, as a vanished peer would.
    const sockets: net.Socket[] = [];
    const relay = net.createServer((inbound) => {
      const outbound = net.connect(Number(target.port || 5432), target.hostname);
      for (const s of [inbound, outbound]) s.on('error', () => undefined);
      inbound.pipe(outbound).pipe(inbound);
      sockets.push(inbound, outbound);
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    const through = new URL(env.databaseUrl);
    through.hostname = '127.0.0.1';
    through.port = String((relay.address() as net.AddressInfo).port);
    const pool = createPool(through.toString(), { max: 1 });
    const cut = () => setTimeout(() => sockets.splice(0).forEach((s) => s.end()), 200);
    try {
      await pool.query('SELECT 1');
      cut();
      const viaPool = await pool.query('SELECT pg_sleep(5)').then(() => undefined, (e: unknown) => e);
      expect(viaPool, String(viaPool)).to.be.instanceOf(Error);
      expect(isUnavailable(viaPool), String(viaPool)).to.equal(true);

      const client = await pool.connect();
      cut();
      const viaClient = await client.query('SELECT pg_sleep(5)').then(() => undefined, (e: unknown) => e);
      client.release(true);
      expect(isUnavailable(viaClient), String(viaClient)).to.equal(true);
    } finally {
      await pool.end();
      relay.close();
    }
  });
});
