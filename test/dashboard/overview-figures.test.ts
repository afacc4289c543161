// The overview's figures against the database (issue 40 point 1): the device counts the duty keeps
// (subscribed, unsubscribed by the app and by the gateway told apart, one row per day and platform,
// counted again when due), the failure reasons of finished sends counted once, and the delivery figures of a
// range's buckets from the sends' counters; one app never counts another's.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { addDevices, makeApp } from '../support/apps.js';
import { countAppDevices, countDueApps, COUNT_EVERY_MS, deviceCounts } from '../../core/overview/device-counts.js';
import { failureReasons, rollupFailureReasons, UNRECORDED } from '../../core/overview/failure-reasons.js';
import { runOverviewDuties } from '../../core/overview/duties.js';
import { deliveryByTime } from '../../core/dashboard-reads/delivery-by-time.js';
import { seedSend } from '../support/seed-sends.js';

const ZERO = { subscribed: 0, unsubscribedApp: 0, unsubscribedGateway: 0, unsubscribedUnknown: 0 };
/** A day of an app with iOS installs only: its figures are iOS's, Android's are zeros. */
const iosOnly = (d: { day: string; subscribed: number; unsubscribedApp: number; unsubscribedGateway: number; unsubscribedUnknown: number }) => {
  const { day, ...figures } = d;
  return { ...d, platforms: { ios: figures, android: ZERO } };
};

describe('overview figures', () => {
  const env = useTestEnv({ bus: false, redis: false });
  const now = new Date('2026-03-10T15:30:00Z');
  const never = () => false;

  it('counts devices by state, the app and Apple told apart, one row a day, and only its own app', async () => {
    const app = await makeApp(env.pool);
    const other = await makeApp(env.pool);
    const ids = await addDevices(env.pool, app.app.id, Array.from({ length: 7 }, () => ({})));
    await addDevices(env.pool, other.app.id, [{}, { subscribed: false }]);
    // 3 subscribed; the app unsubscribed 2, Apple 1 (Unregistered); 1 with no reason (before migration 020).
    await env.pool.query(`UPDATE subscriptions SET subscribed = false, unsubscribed_reason = 'app' WHERE id = ANY($1)`, [ids.slice(0, 2)]);
    await env.pool.query(`UPDATE subscriptions SET subscribed = false, unsubscribed_reason = 'Unregistered' WHERE id = $1`, [ids[2]]);
    await env.pool.query(`UPDATE subscriptions SET subscribed = false, unsubscribed_reason = NULL WHERE id = $1`, [ids[3]]);
    await countAppDevices(env.pool, app.app.id, new Date('2026-03-09T12:00:00Z'));
    await env.pool.query(`UPDATE subscriptions SET subscribed = false, unsubscribed_reason = 'BadDeviceToken' WHERE id = $1`, [ids[4]]);
    await countAppDevices(env.pool, app.app.id, new Date('2026-03-10T08:00:00Z'));
    await countAppDevices(env.pool, app.app.id, now); // the day's last count replaces its earlier one
    const counts = await deviceCounts(env.pool, app.app.id, 30, now);
    expect(counts.days).to.deep.equal([
      iosOnly({ day: '2026-03-09', subscribed: 3, unsubscribedApp: 2, unsubscribedGateway: 1, unsubscribedUnknown: 1 }),
      iosOnly({ day: '2026-03-10', subscribed: 2, unsubscribedApp: 2, unsubscribedGateway: 2, unsubscribedUnknown: 1 }),
    ]);
    expect(counts.countedAt?.toISOString()).to.equal(now.toISOString());
    // 30 days back and no further.
    expect((await deviceCounts(env.pool, app.app.id, 1, now)).days.map((d) => d.day)).to.deep.equal(['2026-03-10']);
    expect((await deviceCounts(env.pool, other.app.id, 30, now)).days).to.deep.equal([]);
  });

  it('counts each platform apart (subscriptions.platform), the sums the same; a platform that lost its installs reads 0', async () => {
    const app = await makeApp(env.pool);
    const ios = await addDevices(env.pool, app.app.id, Array.from({ length: 5 }, () => ({})));
    const android = await addDevices(env.pool, app.app.id, Array.from({ length: 6 }, () => ({})));
    await env.pool.query(`UPDATE subscriptions SET platform = 'android' WHERE id = ANY($1)`, [android]);
    // iOS: 3 subscribed, 1 by the app, 1 by Apple. Android: 2 subscribed, 2 by the app, 1 by Google, 1 with no reason.
    const unsubscribe = (ids: string[], reason: string | null) => env.pool.query('UPDATE subscriptions SET subscribed = false, unsubscribed_reason = $2 WHERE id = ANY($1)', [ids, reason]);
    await unsubscribe([ios[0]], 'app');
    await unsubscribe([ios[1]], 'Unregistered');
    await unsubscribe(android.slice(0, 2), 'app');
    await unsubscribe([android[2]], 'UNREGISTERED');
    await unsubscribe([android[3]], null);
    await countAppDevices(env.pool, app.app.id, now);
    const [today] = (await deviceCounts(env.pool, app.app.id, 1, now)).days;
    expect(today).to.deep.equal({
      day: '2026-03-10', subscribed: 5, unsubscribedApp: 3, unsubscribedGateway: 2, unsubscribedUnknown: 1,
      platforms: {
        ios: { subscribed: 3, unsubscribedApp: 1, unsubscribedGateway: 1, unsubscribedUnknown: 0 },
        android: { subscribed: 2, unsubscribedApp: 2, unsubscribedGateway: 1, unsubscribedUnknown: 1 },
      },
    });
    // The Android figures can come from their index alone (migration 074); a table this small
    // would be scanned, so the planner is told not to.
    const client = await env.pool.connect();
    try {
      await client.query('SET enable_seqscan = off');
      const plan = await client.query(`EXPLAIN SELECT count(*) FILTER (WHERE NOT subscribed AND unsubscribed_reason = 'app') FROM subscriptions WHERE app_id = $1 AND platform = 'android'`, [app.app.id]);
      expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).to.contain('Index Only Scan using subscriptions_android');
    } finally {
      await client.query('RESET enable_seqscan');
      client.release();
    }

    await env.pool.query('DELETE FROM subscriptions WHERE id = ANY($1)', [android]);
    await countAppDevices(env.pool, app.app.id, new Date(now.getTime() + 60_000));
    const [after] = (await deviceCounts(env.pool, app.app.id, 1, now)).days;
    expect(after.platforms.android).to.deep.equal(ZERO);
    expect(after).to.deep.include({ subscribed: 3, unsubscribedApp: 1, unsubscribedGateway: 1, unsubscribedUnknown: 0 });
  });

  it('counts an app when its count is missing or due, and not before; an app without installs counts zeros', async () => {
    const app = await makeApp(env.pool);
    await addDevices(env.pool, app.app.id, [{}, {}]);
    const empty = await makeApp(env.pool);
    const at = new Date('2026-04-01T10:00:00Z');
    const counted = async (t: Date) => (await deviceCounts(env.pool, app.app.id, 1, t)).countedAt?.toISOString();
    expect(await countDueApps(env.pool, { now: () => at, stop: never })).to.be.at.least(2);
    expect(await counted(at)).to.equal(at.toISOString());
    expect((await deviceCounts(env.pool, empty.app.id, 1, at)).days).to.deep.equal([iosOnly({ day: '2026-04-01', ...ZERO })]);
    const soon = new Date(at.getTime() + COUNT_EVERY_MS - 1000);
    await addDevices(env.pool, app.app.id, [{}]);
    expect(await countDueApps(env.pool, { now: () => soon, stop: never })).to.equal(0);
    expect(await counted(soon)).to.equal(at.toISOString());
    const due = new Date(at.getTime() + COUNT_EVERY_MS + 1000);
    await countDueApps(env.pool, { now: () => due, stop: never });
    expect((await deviceCounts(env.pool, app.app.id, 1, due)).days[0].subscribed).to.equal(3);
    // A stop asked for before it starts counts nothing.
    expect(await countDueApps(env.pool, { now: () => new Date(due.getTime() + 2 * COUNT_EVERY_MS), stop: () => true })).to.equal(0);
  });

  it('counts the failure reasons of a finished send once, the unrecorded ones as such; a running send when it finishes', async () => {
    const app = await makeApp(env.pool);
    const other = await makeApp(env.pool);
    const t = new Date(Date.now() - 3 * 86_400_000);
    const failed = await seedSend(env.pool, app.app.id, { at: t, sent: 5, failed: 5, reasons: [['BadDeviceToken', 'Unregistered'], ['BadDeviceToken'], null] });
    await seedSend(env.pool, app.app.id, { at: t, sent: 5 }); // none failed: no row
    const running = await seedSend(env.pool, app.app.id, { at: t, failed: 1, finished: false, reasons: [['TooManyRequests']] });
    await seedSend(env.pool, other.app.id, { at: t, failed: 1, reasons: [['DeviceTokenNotForTopic']] });
    await rollupFailureReasons(env.pool, { now: () => new Date(), stop: never });
    const since = new Date(t.getTime() - 1000);
    expect(await failureReasons(env.pool, app.app.id, since)).to.deep.equal([
      { reason: 'BadDeviceToken', devices: 2 }, { reason: UNRECORDED, devices: 2 }, { reason: 'Unregistered', devices: 1 },
    ]);
    expect(await failureReasons(env.pool, other.app.id, since)).to.deep.equal([{ reason: 'DeviceTokenNotForTopic', devices: 1 }]);
    expect(await failureReasons(env.pool, app.app.id, new Date(t.getTime() + 1000))).to.deep.equal([]);
    // Again: nothing counted twice. The running send finishes: counted at the next run.
    await env.pool.query(`UPDATE sends SET status = 'approved', finished_at = now() WHERE id = $1`, [running]);
    expect(await runOverviewDuties(env.pool, { stop: never })).to.include({ sends: 1 });
    expect(await failureReasons(env.pool, app.app.id, since)).to.deep.include({ reason: 'TooManyRequests', devices: 1 });
    expect((await failureReasons(env.pool, app.app.id, since)).find((r) => r.reason === 'BadDeviceToken')).to.deep.equal({ reason: 'BadDeviceToken', devices: 2 });
    // Deleted with its send (retention).
    await env.pool.query('DELETE FROM sends WHERE id = $1', [failed]);
    expect(await failureReasons(env.pool, app.app.id, since)).to.deep.equal([{ reason: 'TooManyRequests', devices: 1 }]);
  });

  it("gives each bucket of a range its sends' counts: hours for 24 h, days for 7 and 30 d, zero where none started", async () => {
    const app = await makeApp(env.pool);
    const other = await makeApp(env.pool);
    await seedSend(env.pool, app.app.id, { at: new Date('2026-03-10T14:10:00Z'), sent: 90, failed: 10, clicked: 9 });
    await seedSend(env.pool, app.app.id, { at: new Date('2026-03-10T14:50:00Z'), sent: 10, clicked: 1 });
    await seedSend(env.pool, app.app.id, { at: new Date('2026-03-08T09:00:00Z'), sent: 7, failed: 3, clicked: 2 });
    await seedSend(env.pool, app.app.id, { at: new Date('2026-03-10T16:00:00Z'), sent: 1000 }); // later than now: not yet
    await seedSend(env.pool, other.app.id, { at: new Date('2026-03-10T14:00:00Z'), sent: 500 });
    const hours = await deliveryByTime(env.pool, app.app.id, '24h', now);
    expect(hours).to.have.length(24);
    expect(hours.at(-1)!.at.toISOString()).to.equal('2026-03-10T15:00:00.000Z');
    expect(hours.at(-2)).to.deep.equal({ at: new Date('2026-03-10T14:00:00Z'), sends: 2, sent: 100, failed: 10, opened: 10 });
    expect(hours.filter((h) => h.sends).length).to.equal(1);
    const days = await deliveryByTime(env.pool, app.app.id, '7d', now);
    expect(days.map((d) => [d.at.toISOString().slice(0, 10), d.sends, d.sent, d.failed, d.opened])).to.deep.equal([
      ['2026-03-04', 0, 0, 0, 0], ['2026-03-05', 0, 0, 0, 0], ['2026-03-06', 0, 0, 0, 0], ['2026-03-07', 0, 0, 0, 0],
      ['2026-03-08', 1, 7, 3, 2], ['2026-03-09', 0, 0, 0, 0], ['2026-03-10', 2, 100, 10, 10],
    ]);
    expect(await deliveryByTime(env.pool, app.app.id, '30d', now)).to.have.length(30);
  });
});
