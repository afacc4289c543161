// One provider token per team and key across the fleet (issue 37), on a real PostgreSQL: sources
// standing for separate processes present the same JWT; a restart reuses it; Apple's limits hold
// (no newer token within 20 minutes of the last, a new one from 50); N processes racing on an
// empty table mint exactly one, also through PgBouncer in transaction mode; the token is sealed
// at rest. Then the lean transport of three
// "processes" and a restart, read at the simulator: one token presented for the team.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import pino from 'pino';
import { useTestEnv } from '../env/index.js';
import { generateApnsKeyPair, randomAppleId, startApnsSim } from '../../apns-sim/index.js';
import { APNS_TOKEN_POLICY, StoredFleetToken, type FleetTokenKey } from '../../core/gateway/fleet-token-store.js';
import { FleetProviderTokens } from '../../core/apns/fleet-provider-tokens.js';
import { createLeanApnsClient } from '../../core/apns/transport.js';
import { useKeyring } from '../../core/secrets/seal.js';
import type { TokenCredentials } from '../../core/apns/types.js';
import { createPool, type Pool } from '../../core/store/db.js';
import { PGBOUNCER_PORT } from '../env/services.js';
import { databaseUrl } from '../env/database.js';

const silent = pino({ level: 'silent' });

describe('fleet provider tokens', function () {
  this.timeout(60_000);
  const env = useTestEnv({ bus: false, redis: false });
  let mints = 0;
  let key: FleetTokenKey;

  /** A source as one process holds it; every process mints distinct values, so sharing shows. */
  const source = () => new StoredFleetToken(env.pool, key, { policy: APNS_TOKEN_POLICY, mint: async () => `jwt-${++mints}-${randomBytes(4).toString('hex')}` });
  /** Makes the fleet's token `minutes` old by the database's clock. */
  const age = (minutes: number) => env.pool.query(`UPDATE fleet_tokens SET issued_at = now() - make_interval(secs => $3::float8 * 60), expires_at = now() - make_interval(secs => $3::float8 * 60) + interval '60 minutes' WHERE kind = $1 AND identity = $2`, [key.kind, key.identity, minutes]);

  beforeEach(() => {
    mints = 0;
    key = { kind: 'apns', identity: `TEAM.${randomBytes(4).toString('hex')}` };
  });

  it('processes on one database present the same token, and a restarted one reuses it', async () => {
    const [a, b, c] = [source(), source(), source()];
    const first = await a.current();
    expect((await b.current()).value).to.equal(first.value);
    expect((await c.current()).value).to.equal(first.value);
    expect((await source().current()).value, 'after a restart').to.equal(first.value);
    expect(mints).to.equal(1);
    expect(first.expiresAt.getTime() - first.issuedAt.getTime()).to.equal(60 * 60_000);
  });

  it('N processes racing on an empty table, each with its own pool, mint exactly one', async () => {
    const pools: Pool[] = Array.from({ length: 12 }, () => createPool(databaseUrl(env.db.name), { max: 1 }));
    try {
      const tokens = await Promise.all(pools.map((pool) => new StoredFleetToken(pool, key, { policy: APNS_TOKEN_POLICY, mint: async () => `jwt-${++mints}` }).current()));
      expect(new Set(tokens.map((t) => t.value)).size).to.equal(1);
      expect(mints).to.equal(1);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
  });

  it('renewed at least once per hour: kept at 49 minutes, replaced (once) from 50', async () => {
    const first = await source().current();
    await age(49.9);
    expect((await source().current()).value).to.equal(first.value);
    await age(50);
    const [x, y] = await Promise.all([source().current(), source().current()]);
    expect(x.value).to.not.equal(first.value);
    expect(y.value).to.equal(x.value);
    expect(mints).to.equal(2);
  });

  it('refused as expired: not renewed within 20 minutes of the last; from 20, renewed once, the others take it', async () => {
    const first = await source().current();
    await age(19.9);
    expect((await source().renew(first)).value, 'Apple would answer TooManyProviderTokenUpdates').to.equal(first.value);
    expect(mints).to.equal(1);
    await age(20);
    const renewed = await Promise.all([source().renew(first), source().renew(first), source().renew(first)]);
    expect(new Set(renewed.map((t) => t.value)).size).to.equal(1);
    expect(renewed[0].value).to.not.equal(first.value);
    expect(mints).to.equal(2);
    // A process that still holds the stale token takes the fleet's newer one, minting nothing.
    expect((await source().renew(first)).value).to.equal(renewed[0].value);
    expect(mints).to.equal(2);
  });

  it('through PgBouncer in transaction mode (4 server connections): 12 processes, each with its own pool, mint one', async () => {
    const pools: Pool[] = Array.from({ length: 12 }, () => createPool(`postgres://postgres@127.0.0.1:${PGBOUNCER_PORT}/${env.db.name}`, { max: 2, sessionUrl: databaseUrl(env.db.name) }));
    try {
      const tokens = await Promise.all(pools.map((pool) => new StoredFleetToken(pool, key, { policy: APNS_TOKEN_POLICY, mint: async () => `jwt-${++mints}` }).current()));
      expect(new Set(tokens.map((t) => t.value)).size).to.equal(1);
      expect(mints).to.equal(1);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
  });

  it('sealed with a key no longer given (a rotation finished): minted anew, not an error', async () => {
    useKeyring({ current: randomBytes(32), previous: [] });
    try {
      const old = await source().current();
      useKeyring({ current: randomBytes(32), previous: [] });
      const fresh = await source().current();
      expect(fresh.value).to.not.equal(old.value);
      expect(mints).to.equal(2);
      expect((await source().current()).value).to.equal(fresh.value);
    } finally {
      useKeyring({ previous: [] });
    }
  });

  it('sealed at rest with the encryption key', async () => {
    useKeyring({ current: randomBytes(32), previous: [] });
    try {
      const t = await source().current();
      const { rows } = await env.pool.query('SELECT token FROM fleet_tokens WHERE kind = $1 AND identity = $2', [key.kind, key.identity]);
      expect((rows[0].token as Buffer).includes(Buffer.from(t.value))).to.equal(false);
      expect((await source().current()).value).to.equal(t.value);
    } finally {
      useKeyring({ previous: [] });
    }
  });

  it('three processes and a restart, through the lean transport: the simulator sees one token for the team', async () => {
    const apple = generateApnsKeyPair();
    const teamId = randomAppleId();
    const sim = await startApnsSim({ keys: [{ keyId: apple.keyId, teamId, publicKey: apple.publicKeyPem }] });
    const credentials: TokenCredentials = { kind: 'token', keyP8: apple.privateKeyP8, keyId: apple.keyId, teamId };
    const ca = await readFile(sim.caFile, 'utf8');
    const processes: FleetProviderTokens[] = [];
    const deliver = async (i: number) => {
      const fleet = new FleetProviderTokens(env.pool, silent);
      processes.push(fleet);
      const client = createLeanApnsClient({ credentials, topic: 'com.example.fleet', environment: 'production', url: sim.url, ca }, { providerTokens: fleet.source });
      const [r] = await client.send([{ token: `${i}`.padStart(64, 'a'), payload: '{"aps":{}}' }]);
      await client.close();
      return r.status;
    };
    try {
      expect(await Promise.all([deliver(1), deliver(2), deliver(3)])).to.deep.equal([200, 200, 200]);
      expect(await deliver(4), 'a restarted process').to.equal(200);
      expect(sim.providerTokens(teamId)).to.equal(1);
      const minted = await Promise.all(processes.map(async (p) => (await p.minted.get()).values.reduce((n, v) => n + v.value, 0)));
      expect(minted.reduce((a, b) => a + b)).to.equal(1);
    } finally {
      await sim.close();
    }
  });

  it('no token held and the source out (the database down): the messages are held (status 0), none sent', async () => {
    const apple = generateApnsKeyPair();
    const sim = await startApnsSim({ keys: [{ keyId: apple.keyId, teamId: 'TEAM000001', publicKey: apple.publicKeyPem }] });
    const down = { current: () => Promise.reject(new Error('database unavailable')), renew: () => Promise.reject(new Error('database unavailable')) };
    const client = createLeanApnsClient(
      { credentials: { kind: 'token', keyP8: apple.privateKeyP8, keyId: apple.keyId, teamId: 'TEAM000001' }, topic: 'com.example.fleet', environment: 'production', url: sim.url, ca: await readFile(sim.caFile, 'utf8') },
      { providerTokens: () => down, logger: silent },
    );
    try {
      const results = await client.send([{ token: 'ab'.repeat(32), payload: '{"aps":{}}' }]);
      expect(results).to.deep.equal([{ token: 'ab'.repeat(32), status: 0, reason: 'ProviderTokenUnavailable' }]);
      expect(sim.stats().requests).to.equal(0);
    } finally {
      await client.close();
      await sim.close();
    }
  });
});
