// The two places that once broke the lock order of the user calls (core/users/transaction.ts:
// alias names, then users sorted, then installs), on real PostgreSQL and without timing: a
// transaction plays the user call (it holds a user, as every user call does first, and then
// writes that user's installs), the operation under test is started, and once PostgreSQL says
// the operation waits for that transaction, the transaction writes an install the operation
// would take. In the one order the operation holds no install while it waits for a user, so the
// write goes through; before, the operation held the install and waited for the user while the
// user's holder waited for the install: a deadlock (40P01), PostgreSQL ending one of them.
//   1. `herald import` merged the file's installs, then updated their users (installs, users).
//   2. createUser moved a token's install to the new user without locking its old user.
// Both plan the users from reads taken before they hold them; an install that changes user in
// between is found once held, and its new user is taken before the operation goes on.
import { expect } from 'chai';
import { Readable } from 'node:stream';
import { useTestEnv } from '../env/index.js';
import { makeApp, type TestApp } from '../support/apps.js';
import { waitFor } from '../support/wait.js';
import type { PoolClient } from '../../core/store/db.js';
import { createUser, getUser } from '../../core/users/operations.js';
import { transferSubscription } from '../../core/users/subscription-operations.js';
import { importSubscriptions } from '../../core/users/import-installs.js';
import { userReruns } from '../../core/users/transaction.js';

/** A transaction playing a user call; `done` once it committed and gave its connection back. */
interface Holder {
  db: PoolClient;
  pid: number;
  done: boolean;
}

const codeOf = <T>(work: Promise<T>) => work.then(() => undefined, (error: { code?: string }) => error.code ?? String(error));

describe('core/users: the import and createUser take users before installs', () => {
  const env = useTestEnv({ bus: false, redis: false });
  let app: TestApp;
  let n = 0;
  const nextToken = () => (0x10ca00 + ++n).toString(16).padStart(64, '0');

  before(async () => {
    app = await makeApp(env.pool);
  });

  // A test that fails part way leaves no transaction holding a user (the operation waiting on it
  // would keep its connection, and the file's database, to the end).
  const held: Holder[] = [];
  afterEach(async () => {
    for (const holder of held.splice(0)) {
      if (holder.done) continue;
      await holder.db.query('ROLLBACK').catch(() => undefined);
      holder.db.release();
    }
  });

  /** A user of the external id holding installs of these tokens; its id and its installs' ids in token order. */
  async function userWith(externalId: string, tokens: string[]): Promise<{ userId: string; installs: string[] }> {
    const made = await createUser(env.pool, app.app.id, { identity: { external_id: externalId }, subscriptions: tokens.map((token) => ({ type: 'iOSPush' as const, token })) });
    if (made.kind === 'conflict') throw new Error('unexpected conflict');
    return { userId: made.view.identity.onesignal_id, installs: tokens.map((t) => made.view.subscriptions.find((s) => s.token === t)!.id) };
  }

  /** A transaction playing a user call: it holds the user (FOR UPDATE, as lockUsers and findUser take it). */
  async function holdUser(userId: string): Promise<Holder> {
    const db = await env.pool.connect();
    await db.query('BEGIN');
    await db.query('SELECT id FROM users WHERE id = $1 FOR UPDATE', [userId]);
    const holder = { db, done: false, pid: (await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid };
    held.push(holder);
    return holder;
  }

  async function commit(holder: Holder): Promise<void> {
    holder.done = true;
    try {
      await holder.db.query('COMMIT');
    } finally {
      holder.db.release();
    }
  }

  /** Whether some backend of this database waits for a lock `holder` holds. */
  const isWaitedOn = async (holder: { pid: number }) => (await env.pool.query(
    'SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND $1 = ANY(pg_blocking_pids(pid))', [holder.pid],
  )).rowCount! > 0;
  const waitingFor = (holder: { pid: number }, what: string) => waitFor(what, () => isWaitedOn(holder));

  /** The holder writes an install of its user, as the user call goes on to; the SQLSTATE it met (undefined: written). Then it commits. */
  async function writeInstallAndCommit(holder: Holder, installId: string): Promise<string | undefined> {
    const met = await codeOf(holder.db.query(`UPDATE subscriptions SET tags = tags || '{"holder":"1"}' WHERE id = $1`, [installId]));
    if (met === undefined) await commit(holder);
    return met;
  }

  const importLines = (lines: object[]) => importSubscriptions(env.pool, app.app.id, Readable.from([lines.map((l) => JSON.stringify(l)).join('\n') + '\n']));
  const tagsOf = async (userId: string) => (await env.pool.query<{ tags: Record<string, string> }>('SELECT tags FROM users WHERE id = $1', [userId])).rows[0].tags;

  it('herald import waits for a user call holding the user of an imported install without holding the install: no deadlock', async () => {
    const token = nextToken();
    const { userId, installs: [install] } = await userWith('gap-import', [token]);
    const holder = await holdUser(userId);
    const importing = codeOf(importLines([{ token, tags: { imported: 'y' } }]));
    await waitingFor(holder, 'the import waiting for the user call');
    expect(await writeInstallAndCommit(holder, install), 'the user call writing its install').to.equal(undefined);
    expect(await importing, 'the import').to.equal(undefined);
    expect(await tagsOf(userId)).to.deep.equal({ imported: 'y' });
  });

  it('herald import takes the user of an install that joined one while the import waited, before holding that install again: no deadlock', async () => {
    const [mine, loose] = [nextToken(), nextToken()];
    const { userId } = await userWith('gap-import-a', [mine]);
    const other = (await userWith('gap-import-w', [])).userId;
    await importLines([{ token: loose }]);
    const looseId = (await env.pool.query<{ id: string }>('SELECT id FROM subscriptions WHERE app_id = $1 AND token = $2', [app.app.id, loose])).rows[0].id;
    const first = await holdUser(userId);
    const importing = codeOf(importLines([{ token: mine, tags: { line: '1' } }, { token: loose, tags: { line: '2' } }]));
    // The import planned its users (the install of `loose` had none) and waits for the first.
    await waitingFor(first, 'the import waiting for the first user');
    await transferSubscription(env.pool, app.app.id, looseId, ['external_id', 'gap-import-w']);
    const second = await holdUser(other);
    await commit(first);
    await waitingFor(second, 'the import waiting for the user the install joined');
    expect(await writeInstallAndCommit(second, looseId), 'the user call writing the install that joined it').to.equal(undefined);
    expect(await importing, 'the import').to.equal(undefined);
    expect([await tagsOf(userId), await tagsOf(other)]).to.deep.equal([{ line: '1' }, { line: '2' }]);
  });

  it('createUser taking two installs of another user waits for that user before holding either: no deadlock', async () => {
    const tokens = [nextToken(), nextToken()];
    const { userId, installs } = await userWith('gap-old', tokens);
    const before = userReruns();
    const holder = await holdUser(userId);
    // The user call is part way through writing its user's installs: it holds the second one.
    await holder.db.query('UPDATE subscriptions SET updated_at = now() WHERE id = $1', [installs[1]]);
    const creating = createUser(env.pool, app.app.id, { identity: { external_id: 'gap-new' }, subscriptions: tokens.map((token) => ({ type: 'iOSPush' as const, token })) });
    await waitingFor(holder, 'createUser waiting for the user call');
    expect(await writeInstallAndCommit(holder, installs[0]), 'the user call writing its other install').to.equal(undefined);
    const made = await creating;
    expect(made.kind).to.equal('created');
    expect(userReruns().deadlock - before.deadlock, 'createUsers PostgreSQL ended as a deadlock').to.equal(0);
    const now = await getUser(env.pool, app.app.id, { alias: { label: 'external_id', id: 'gap-new' } });
    expect(now.subscriptions.map((s) => s.id).sort()).to.deep.equal([...installs].sort());
  });

  it('createUser whose token\'s install moved to a third user while it waited runs again and waits for that user too', async () => {
    const token = nextToken();
    const made = [await userWith('gap-stale-1', [token]), await userWith('gap-stale-2', [])];
    // The install's user is locked first (its id sorts first), so createUser then waits for the other.
    const [from, named] = made[0].userId < made[1].userId ? made : [made[1], made[0]];
    const namedAlias = from === made[0] ? 'gap-stale-2' : 'gap-stale-1';
    if (from === made[1]) await transferSubscription(env.pool, app.app.id, made[0].installs[0], ['external_id', 'gap-stale-2']);
    const installId = (await env.pool.query<{ id: string }>('SELECT id FROM subscriptions WHERE app_id = $1 AND token = $2', [app.app.id, token])).rows[0].id;
    const third = (await userWith('gap-stale-x', [])).userId;
    const holdingNamed = await holdUser(named.userId);
    const holdingFrom = await holdUser(from.userId);
    let settled = false;
    const creating = createUser(env.pool, app.app.id, { identity: { external_id: namedAlias }, subscriptions: [{ type: 'iOSPush', token }] });
    const outcome = codeOf(creating).finally(() => (settled = true));
    await waitingFor(holdingFrom, 'createUser waiting for the install\'s user');
    // A transfer of the install to the third user (it holds the install's user) commits meanwhile.
    await holdingFrom.db.query('UPDATE subscriptions SET user_id = $2 WHERE id = $1', [installId, third]);
    await commit(holdingFrom);
    await waitingFor(holdingNamed, 'createUser waiting for the user its alias names');
    const holdingThird = await holdUser(third);
    await commit(holdingNamed);
    const waited = await waitFor('createUser waiting for the third user, or done', async () => (settled ? 'done' : (await isWaitedOn(holdingThird)) && 'waiting'));
    expect(waited, 'createUser moved the third user\'s install without that user').to.equal('waiting');
    await commit(holdingThird);
    expect(await outcome, 'createUser').to.equal(undefined);
    const now = await getUser(env.pool, app.app.id, { alias: { label: 'external_id', id: namedAlias } });
    expect(now.subscriptions.map((s) => s.id)).to.deep.equal([installId]);
  });
});
