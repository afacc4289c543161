// getNotifications with time_offset (issue 30 point 5), through the official client against the
// real api and PostgreSQL: the app's sends oldest first by send_after (the scheduled time, else
// when accepted), after an ISO 8601 time (a send at exactly that instant passed over) or after the
// next_time_offset of the page before; an empty page gives its time_offset back; with offset, or a
// token that is not one, a 400 naming time_offset; another app's sends never appear.
import { expect } from 'chai';
import * as OneSignal from '@onesignal/node-onesignal';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { makeApp, type TestApp } from '../support/apps.js';
import { officialClient, refused } from '../support/onesignal.js';
import { TIME_OFFSET_HELP } from '../../core/send/time-offset.js';

describe('api: the list call with time_offset through the official client', () => {
  const env = useTestEnv();
  const api = useTestApi(env);
  let app: TestApp;
  let client: OneSignal.DefaultApi;
  /** The app's sends in time_offset order: five accepted at 00:00:01–05 (two in the same microsecond), then one scheduled later. */
  const ordered: number[] = [];

  before(async () => {
    app = await makeApp(env.pool);
    const other = await makeApp(env.pool);
    client = officialClient(api.url, app.key);
    const send = async (a: TestApp, body: Record<string, unknown> = {}) => {
      const res = await api.request('POST', '/api/v1/notifications', { key: a.key, body: { app_id: a.app.id, contents: { en: 'x' }, include_subscription_ids: [], ...body } });
      expect(res.status).to.equal(200);
      return res.body.id as number;
    };
    const times = ['01', '02', '03', '03', '04'];
    const made: number[] = [];
    for (let i = 0; i < times.length; i++) made.push(await send(app));
    // Their times fixed (to the microsecond: the two at 03 differ only by id).
    for (const [i, id] of made.entries()) await env.pool.query(`UPDATE sends SET created_at = $2 WHERE id = $1`, [id, `2026-01-01T00:00:${times[i]}.000001Z`]);
    const scheduled = await send(app, { send_after: new Date(Date.now() + 86_400_000).toISOString() });
    // Accepted first, but scheduled for 2026-01-01T00:00:00.5: before them all.
    await env.pool.query(`UPDATE sends SET created_at = '2025-12-31T00:00:00Z', send_after = '2026-01-01T00:00:00.5Z' WHERE id = $1`, [scheduled]);
    ordered.push(scheduled, ...made);
    const theirs = await send(other);
    await env.pool.query(`UPDATE sends SET created_at = '2026-01-01T00:00:02.5Z' WHERE id = $1`, [theirs]);
  });

  const page = (timeOffset: string, limit?: number) => client.getNotifications(app.app.id, limit, undefined, undefined, timeOffset);
  const idsOf = (slice: OneSignal.NotificationSlice) => (slice.notifications ?? []).map((n) => Number(n.id));

  it('pages oldest first from an ISO time with next_time_offset until an empty page, which gives its time_offset back', async () => {
    const seen: number[] = [];
    let offset = '2025-06-01T00:00:00.000Z';
    for (let i = 0; i < 10; i++) {
      const slice = await page(offset, 2);
      expect(slice.time_offset).to.equal(offset);
      if (!slice.notifications?.length) {
        expect(slice.next_time_offset).to.equal(offset);
        break;
      }
      seen.push(...idsOf(slice));
      offset = slice.next_time_offset!;
    }
    expect(seen).to.deep.equal(ordered);
  });

  it('passes over the sends at exactly the instant given, and sorts by send_after, not by when a send was accepted', async () => {
    expect(idsOf(await page('2026-01-01T00:00:02.000001Z'))).to.deep.equal(ordered.slice(3));
    expect(idsOf(await page('2026-01-01T00:00:00Z', 1))).to.deep.equal([ordered[0]]);
    expect(idsOf(await page('2026-01-01', 50))).to.deep.equal(ordered);
    expect(idsOf(await page('2027-01-01T00:00:00Z'))).to.deep.equal([]);
  });

  it('a token keeps its place to the microsecond: two sends of one instant are neither repeated nor passed over', async () => {
    const first = await page('2026-01-01T00:00:02.5Z', 1);
    expect(idsOf(first)).to.deep.equal([ordered[3]]);
    expect(idsOf(await page(first.next_time_offset!, 1))).to.deep.equal([ordered[4]]);
  });

  it('time_offset with offset, or one that is neither a time nor a token, is a 400 naming it', async () => {
    const withOffset = await refused(client.getNotifications(app.app.id, 10, 0, undefined, '2026-01-01T00:00:00Z'));
    expect([withOffset.code, withOffset.body.errors]).to.deep.equal([400, ['time_offset cannot be used with offset: give one of them.']]);
    const forged = Buffer.from('yesterday#1').toString('base64url');
    for (const bad of ['tomorrow', forged, 'x'.repeat(101), '2026-13-45T00:00:00Z', '2026-02-30T00:00:00Z', '2026-01-01T24:00:00Z']) {
      const r = await refused(page(bad));
      expect([r.code, r.body.errors]).to.deep.equal([400, [TIME_OFFSET_HELP]]);
    }
  });
});
