// The user operations of core/users (issue 36 point 4) on real PostgreSQL: each owns its
// transaction and takes its locks in the one order (core/users/transaction.ts: alias names, users,
// installs). Opposite transfers and the erasure of both users, run together round after round,
// never wait on each other in a circle (PostgreSQL ends none as a deadlock), each ends done or
// "No such user/subscription.", and the erasures leave nothing of either user behind. Before the
// transfer locked both users (it locked the new one, then the install, then copied onto the new
// user's installs), two opposite transfers each held one install and waited for the other's; so
// did two createSubscriptions taking each other's tokens.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { makeApp, type TestApp } from '../support/apps.js';
import { NotFoundError } from '../../core/errors.js';
import { createUser, eraseUser, getUser } from '../../core/users/operations.js';
import { addUserSubscription, eraseSubscription, transferSubscription } from '../../core/users/subscription-operations.js';
import { userReruns } from '../../core/users/transaction.js';

const ROUNDS = 40;

describe('core/users operations: transfers and erasures run together', () => {
  const env = useTestEnv({ bus: false, redis: false });
  let app: TestApp;
  let n = 0;
  const nextToken = () => (0x36a000 + ++n).toString(16).padStart(64, '0');

  before(async () => {
    app = await makeApp(env.pool);
  });

  /** A user of the external id with `installs` new iOS installs; their ids. */
  async function userWith(externalId: string, installs: number): Promise<string[]> {
    const made = await createUser(env.pool, app.app.id, { identity: { external_id: externalId }, subscriptions: Array.from({ length: installs }, () => ({ type: 'iOSPush' as const, token: nextToken() })) });
    if (made.kind === 'conflict') throw new Error('unexpected conflict');
    return made.view.subscriptions.map((s) => s.id);
  }

  /** Done, or refused as not found (the other operation got there first); anything else is a failure. */
  const settled = async (work: Promise<unknown>): Promise<'done' | 'not found'> => {
    try {
      await work;
      return 'done';
    } catch (error) {
      if (error instanceof NotFoundError) return 'not found';
      throw error;
    }
  };

  it(`${ROUNDS} rounds of two opposite transfers, an install's erasure and both users' erasures at once: no deadlock, nothing left`, async () => {
    const before = userReruns();
    const outcomes: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const [a1, a2] = await userWith(`ops-a-${round}`, 2);
      const [b1] = await userWith(`ops-b-${round}`, 1);
      outcomes.push(...(await Promise.all([
        settled(transferSubscription(env.pool, app.app.id, a1, ['external_id', `ops-b-${round}`])),
        settled(transferSubscription(env.pool, app.app.id, b1, ['external_id', `ops-a-${round}`])),
        settled(eraseSubscription(env.pool, app.app.id, a2)),
        settled(eraseUser(env.pool, app.app.id, { alias: { label: 'external_id', id: `ops-a-${round}` } })),
        settled(eraseUser(env.pool, app.app.id, { alias: { label: 'external_id', id: `ops-b-${round}` } })),
      ])));
    }
    expect(userReruns().deadlock - before.deadlock, 'operations PostgreSQL ended as a deadlock').to.equal(0);
    expect(outcomes).to.include('done');
    const left = await env.pool.query<{ users: number; installs: number; aliases: number }>(
      `SELECT (SELECT count(*)::int FROM users WHERE app_id = $1) AS users, (SELECT count(*)::int FROM subscriptions WHERE app_id = $1) AS installs,
              (SELECT count(*)::int FROM user_aliases WHERE app_id = $1) AS aliases`,
      [app.app.id],
    );
    expect(left.rows[0]).to.deep.equal({ users: 0, installs: 0, aliases: 0 });
  });

  it('two users swapping all their installs at once, round after round: no deadlock, each install moved once', async () => {
    const before = userReruns();
    const a = await userWith('swap-a', 4);
    const b = await userWith('swap-b', 4);
    let [onA, onB] = [a, b];
    for (let round = 0; round < 15; round++) {
      await Promise.all([
        ...onA.map((id) => transferSubscription(env.pool, app.app.id, id, ['external_id', 'swap-b'])),
        ...onB.map((id) => transferSubscription(env.pool, app.app.id, id, ['external_id', 'swap-a'])),
      ]);
      [onA, onB] = [onB, onA];
      const now = await getUser(env.pool, app.app.id, { alias: { label: 'external_id', id: 'swap-a' } });
      expect(now.subscriptions.map((s) => s.id).sort()).to.deep.equal([...onA].sort());
    }
    expect(userReruns().deadlock - before.deadlock, 'transfers PostgreSQL ended as a deadlock').to.equal(0);
  });

  it('two users taking each other\'s tokens by createSubscription at once, round after round: no deadlock', async () => {
    const before = userReruns();
    const tokensOf = async (externalId: string) => (await getUser(env.pool, app.app.id, { alias: { label: 'external_id', id: externalId } })).subscriptions.map((s) => s.token);
    await userWith('take-a', 4);
    await userWith('take-b', 4);
    for (let round = 0; round < 15; round++) {
      const [onA, onB] = [await tokensOf('take-a'), await tokensOf('take-b')];
      await Promise.all([
        ...onA.map((token) => addUserSubscription(env.pool, app.app.id, { label: 'external_id', id: 'take-b' }, { type: 'iOSPush', token })),
        ...onB.map((token) => addUserSubscription(env.pool, app.app.id, { label: 'external_id', id: 'take-a' }, { type: 'iOSPush', token })),
      ]);
      expect((await tokensOf('take-a')).sort()).to.deep.equal([...onB].sort());
    }
    expect(userReruns().deadlock - before.deadlock, 'createSubscriptions PostgreSQL ended as a deadlock').to.equal(0);
  });

  it('an operation on a user no alias names is "No such user." and writes nothing', async () => {
    const ref = { alias: { label: 'external_id', id: 'nobody' } };
    const count = async () => (await env.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM users WHERE app_id = $1', [app.app.id])).rows[0].n;
    const before = await count();
    for (const work of [() => getUser(env.pool, app.app.id, ref), () => eraseUser(env.pool, app.app.id, ref)]) {
      const error = await work().then(() => undefined, (e: unknown) => e);
      expect(error).to.be.instanceOf(NotFoundError);
      expect((error as Error).message).to.equal('No such user.');
    }
    expect(await count()).to.equal(before);
  });
});
