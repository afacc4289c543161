// A send's history, its events, its outcomes and its report as the official client reads them
// (issue 30 points 3–5): getNotificationHistory, exportEvents, getOutcomes, getNotification's
// platform_delivery_stats, through @onesignal/node-onesignal unchanged against the real api, a
// real sender and the APNs simulator (some tokens refused by Apple). The files are fetched,
// gunzipped and read row by row; an install erased since is in none of them.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import * as OneSignal from '@onesignal/node-onesignal';
import { useTestEnv } from '../env/index.js';
import { addDevices, startDeliveryStack, waitFinal, type DeliveryStack } from '../delivery/fixtures.js';
import { officialClient, refused } from '../support/onesignal.js';
import { createKey } from '../../core/apps/keys.js';
import { createTestApp } from '../delivery/fixtures.js';
import { SEND_FILE_HEADERS } from '../../core/exports/send-files.js';
import { unknownOutcome } from '../../core/send/click-outcomes.js';
import { parseCsv } from '../support/csv.js';
import { DEFAULT_RETENTION, pruneFinishedSends } from '../../core/send/retention.js';

describe('api: history, events and outcomes of a send through the official client', () => {
  const env = useTestEnv();
  let stack: DeliveryStack;
  let appId: string;
  let sendId: string;
  /** Subscription ids by role: accepted by Apple, refused (BadDeviceToken, PayloadTooLarge). */
  const installs = { sent: [] as string[], badToken: '', tooLarge: '' };
  const clickedBy: string[] = [];

  const history = (events: 'sent' | 'clicked', client = stack.client, id = sendId) =>
    client.getNotificationHistory(id, Object.assign(new OneSignal.GetNotificationHistoryRequestBody(), { app_id: appId, events }));

  /** The link's file, by column. */
  async function rows(url: string): Promise<{ header: string[]; rows: Record<string, string>[] }> {
    const res = await fetch(url);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/gzip');
    const [header, ...rest] = parseCsv(gunzipSync(Buffer.from(await res.arrayBuffer())).toString('utf8'));
    return { header, rows: rest.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]]))) };
  }

  before(async () => {
    stack = await startDeliveryStack(env, 'history', {
      rules: [
        { prefix: 'bad0', status: 400, reason: 'BadDeviceToken' },
        { prefix: '1a1a', status: 400, reason: 'PayloadTooLarge' },
      ],
    });
    appId = stack.app.app.id;
    await addDevices(env.pool, appId, 4, { prefix: 'a0', externalIdPrefix: 'user-' });
    await addDevices(env.pool, appId, 1, { prefix: 'bad0' });
    await addDevices(env.pool, appId, 1, { prefix: '1a1a' });
    const ids = await env.pool.query<{ id: string; token: string }>('SELECT id::text, token FROM subscriptions WHERE app_id = $1 ORDER BY seq', [appId]);
    for (const r of ids.rows) {
      if (r.token.startsWith('bad0')) installs.badToken = r.id;
      else if (r.token.startsWith('1a1a')) installs.tooLarge = r.id;
      else installs.sent.push(r.id);
    }
    const sent = await stack.client.createNotification(Object.assign(new OneSignal.Notification(), { app_id: appId, contents: { en: 'History' }, included_segments: ['Subscribed Users'] }));
    sendId = String(sent.id);
    const { final } = await waitFinal(env.pool, Number(sendId));
    expect(final).to.include({ sent: 4, failed: 2 });
    // Two of the accepted installs open it, as the app's SDK reports.
    for (const id of installs.sent.slice(0, 2)) {
      const opened = await stack.api.request('POST', `/api/v1/notifications/${sendId}/opened`, { body: { app_id: appId, subscription_id: id } });
      expect(opened.status).to.equal(200);
      clickedBy.push(id);
    }
  });
  after(() => stack?.close());

  it('getNotificationHistory sent: a one-time link to the installs Apple accepted it for, with OneSignal\'s columns', async () => {
    const answer = await history('sent');
    expect(answer.success).to.equal(true);
    expect(answer.destination_url).to.match(new RegExp(`^${stack.api.url}/api/v1/exports/[A-Za-z0-9_-]{43}\\.csv\\.gz$`));
    const file = await rows(answer.destination_url!);
    expect(file.header).to.deep.equal([...SEND_FILE_HEADERS.history_sent]);
    expect(file.rows.map((r) => r.player_id).sort()).to.deep.equal([...installs.sent].sort());
    expect(file.rows.map((r) => r.external_id).sort()).to.deep.equal(['user-1', 'user-2', 'user-3', 'user-4']);
    expect(new Set(file.rows.map((r) => r.target_channel))).to.deep.equal(new Set(['push']));
    // The link served once.
    expect((await fetch(answer.destination_url!)).status).to.equal(404);
  });

  it('getNotificationHistory clicked: the installs that opened it, with when (Unix seconds)', async () => {
    const file = await rows((await history('clicked')).destination_url!);
    expect(file.header).to.deep.equal([...SEND_FILE_HEADERS.history_clicked]);
    expect(file.rows.map((r) => r.player_id).sort()).to.deep.equal([...clickedBy].sort());
    for (const r of file.rows) expect(Math.abs(Number(r.timestamp) - Date.now() / 1000)).to.be.below(300);
  });

  it('exportEvents: one row per install, sent or failed with Apple\'s reason, unsubscribed when Apple refused the token for good, clicked', async () => {
    const answer = await stack.client.exportEvents(sendId, appId);
    const file = await rows(answer.csv_file_url!);
    expect(file.header).to.deep.equal([...SEND_FILE_HEADERS.events]);
    const by = new Map(file.rows.map((r) => [r.subscription_id, r]));
    expect([...by.keys()].sort()).to.deep.equal([...installs.sent, installs.badToken, installs.tooLarge].sort());
    for (const id of installs.sent) {
      const r = by.get(id)!;
      expect([r.device_type, r.failed, r.unsubscribed, r.failure_message]).to.deep.equal(['0', '', '', '']);
      expect(Number(r.sent)).to.be.above(0);
      expect(r.clicked === '').to.equal(!clickedBy.includes(id));
    }
    const bad = by.get(installs.badToken)!;
    expect([bad.sent, bad.failure_message, bad.unsubscribed === bad.failed]).to.deep.equal(['', 'BadDeviceToken', true]);
    expect(Number(bad.failed)).to.be.above(0);
    const large = by.get(installs.tooLarge)!;
    expect([large.sent, large.failure_message, large.unsubscribed]).to.deep.equal(['', 'PayloadTooLarge', '']);
  });

  it("getNotification carries platform_delivery_stats for iOS with Herald's counts (Android's none), and no received", async () => {
    const n = await stack.client.getNotification(appId, sendId);
    expect(n.platform_delivery_stats?.ios).to.deep.equal(Object.assign(new OneSignal.DeliveryData(), { successful: 4, failed: 2, errored: 0, converted: 2 }));
    expect(n.platform_delivery_stats?.android).to.deep.equal(Object.assign(new OneSignal.DeliveryData(), { successful: 0, failed: 0, errored: 0, converted: 0 }));
    expect(n.received).to.equal(undefined);
    const page = await stack.client.getNotifications(appId, 1);
    expect(page.notifications?.[0].platform_delivery_stats?.ios?.successful).to.equal(4);
  });

  it('getOutcomes: os__click.count over the time range, per platform and attribution; any other outcome is a 400 naming it', async () => {
    const clicks = async (...args: [string?, string?, string?]) => (await stack.client.getOutcomes(appId, 'os__click.count', undefined, ...args)).outcomes;
    expect(await clicks()).to.deep.equal([Object.assign(new OneSignal.OutcomeData(), { id: 'os__click', value: 2, aggregation: 'count' })]);
    expect((await clicks('1d'))?.[0].value).to.equal(2);
    expect((await clicks('1mo', '0', 'direct'))?.[0].value).to.equal(2);
    expect((await clicks('1h', '1,5'))?.[0].value).to.equal(0);
    expect((await clicks('1h', undefined, 'influenced'))?.[0].value).to.equal(0);
    // outcome_names[] gives one name each.
    expect((await stack.client.getOutcomes(appId, '', 'os__click.count')).outcomes?.[0].value).to.equal(2);
    for (const [names, field] of [['Purchase.count', 'outcome_names'], ['os__click.sum', 'os__click'], ['os__session_duration.count', 'outcome_names']]) {
      const r = await refused(stack.client.getOutcomes(appId, names));
      expect(r.code).to.equal(400);
      expect(r.body.errors[0]).to.include(field);
    }
    expect((await refused(stack.client.getOutcomes(appId, 'Purchase.count'))).body.errors).to.deep.equal([unknownOutcome('Purchase.count')]);
    for (const args of [['2h'], ['1h', '99'], ['1h', undefined, 'first']] as const) {
      expect((await refused(stack.client.getOutcomes(appId, 'os__click.count', undefined, ...args))).code).to.equal(400);
    }
  });

  it('accepts email as OneSignal does (no email sent: the link is in the answer); refuses an unknown event and a missing one with a 422 naming the field', async () => {
    const ask = (body: Record<string, unknown>) => stack.api.request('POST', `/api/v1/notifications/${sendId}/history`, { key: stack.key, body: { app_id: appId, ...body } });
    const email = await ask({ events: 'sent', email: 'me@example.com' });
    expect(email.status).to.equal(200);
    expect((await rows(email.body.destination_url)).rows.map((r) => r.player_id).sort()).to.deep.equal([...installs.sent].sort());
    expect((await ask({ events: 'sent', email: `${'a'.repeat(309)}@example.com` })).body.errors).to.deep.equal(['email is longer than 320 characters.']);
    expect((await ask({ events: 'opened' })).body.errors[0]).to.match(/^events is opened: it is one of sent, clicked\.$/);
    expect((await ask({})).body.errors).to.deep.equal(['events is required.']);
  });

  it("tenancy: another app's send is a 404, another app_id a 403; a read key cannot take the files", async () => {
    const other = await createTestApp(env.pool, 'history-other');
    const { key } = await createKey(env.pool, other.app.id);
    const theirs = officialClient(stack.api.url, key);
    const asOther = await refused(theirs.getNotificationHistory(sendId, Object.assign(new OneSignal.GetNotificationHistoryRequestBody(), { app_id: other.app.id, events: 'sent' })));
    expect(asOther.code).to.equal(404);
    expect((await refused(theirs.exportEvents(sendId, other.app.id))).code).to.equal(404);
    expect((await refused(history('sent', theirs))).code).to.equal(403);
    expect((await refused(stack.client.exportEvents(sendId, other.app.id))).code).to.equal(403);
    expect((await refused(stack.client.getOutcomes(other.app.id, 'os__click.count'))).code).to.equal(403);
    expect((await refused(history('sent', stack.client, '999999999'))).code).to.equal(404);
    const reader = officialClient(stack.api.url, (await createKey(env.pool, appId, { name: 'reader', scope: 'read' })).key);
    expect((await refused(history('sent', reader))).code).to.equal(403);
    expect((await reader.getOutcomes(appId, 'os__click.count')).outcomes?.[0].value).to.equal(2);
  });

  it('an install erased since (deleteSubscription, deleteUser) is in no file and no longer counted as a click', async () => {
    const gone = clickedBy[0];
    await stack.client.deleteSubscription(appId, gone);
    // The user of external id user-3 (the third accepted install) goes whole.
    const userGone = installs.sent[2];
    await stack.client.deleteUser(appId, 'external_id', 'user-3');
    const sent = await rows((await history('sent')).destination_url!);
    expect(sent.rows.map((r) => r.player_id).sort()).to.deep.equal(installs.sent.filter((id) => id !== gone && id !== userGone).sort());
    const clicked = await rows((await history('clicked')).destination_url!);
    expect(clicked.rows.map((r) => r.player_id)).to.deep.equal([clickedBy[1]]);
    const events = await rows((await stack.client.exportEvents(sendId, appId)).csv_file_url!);
    expect(events.rows).to.have.length(4);
    expect(events.rows.map((r) => r.subscription_id).sort()).to.deep.equal([...installs.sent.filter((id) => id !== gone && id !== userGone), installs.badToken, installs.tooLarge].sort());
    expect((await stack.client.getOutcomes(appId, 'os__click.count')).outcomes?.[0].value).to.equal(1);
  });

  it('a link past its hour is a 410 to a HEAD and a download (docs/api.md: a late fetch is a 410)', async () => {
    const { destination_url: url } = await history('clicked');
    const token = url!.split('/').pop()!.replace('.csv.gz', '');
    const digest = createHash('sha256').update(token).digest();
    const moved = await env.pool.query(`UPDATE export_links SET expires_at = now() - interval '1 second' WHERE token_sha256 = $1`, [digest]);
    expect(moved.rowCount).to.equal(1);
    expect((await fetch(url!, { method: 'HEAD' })).status).to.equal(410);
    const late = await fetch(url!);
    expect(late.status).to.equal(410);
    expect((await late.json()).errors).to.deep.equal(['This export link has expired: ask for a new one.']);
  });

  // Last: it makes the app's newest send, which the list test above reads first.
  it("a send whose chunk rows retention pruned: sent history and exportEvents are a 410 saying why, clicked still answers", async () => {
    const install = installs.sent[3];
    const sent = await stack.client.createNotification(Object.assign(new OneSignal.Notification(), { app_id: appId, contents: { en: 'Old' }, include_subscription_ids: [install] }));
    const id = String(sent.id);
    expect((await waitFinal(env.pool, Number(id))).final.sent).to.equal(1);
    expect((await stack.api.request('POST', `/api/v1/notifications/${id}/opened`, { body: { app_id: appId, subscription_id: install } })).status).to.equal(200);
    // Finished a day past HERALD_CHUNK_RETENTION_DAYS (and within the send's own retention); the
    // retention duty takes its chunk rows and marks it.
    await env.pool.query(`UPDATE sends SET finished_at = now() - make_interval(days => $2) WHERE id = $1`, [id, DEFAULT_RETENTION.chunkDays + 1]);
    const pruned = await pruneFinishedSends(env.pool, DEFAULT_RETENTION);
    expect(pruned.chunks).to.be.above(0);
    expect((await env.pool.query('SELECT count(*)::int AS n FROM send_chunks WHERE send_id = $1', [id])).rows[0].n).to.equal(0);

    const gone = 'This notification finished longer ago than its delivery records are kept (HERALD_CHUNK_RETENTION_DAYS): its sent history and events are gone; its clicks are still there (events: clicked).';
    for (const call of [() => history('sent', stack.client, id), () => stack.client.exportEvents(id, appId)]) {
      const r = await refused(call());
      expect([r.code, r.body.errors]).to.deep.equal([410, [gone]]);
    }
    const clicked = await rows((await history('clicked', stack.client, id)).destination_url!);
    expect(clicked.rows.map((r) => r.player_id)).to.deep.equal([install]);
  });
});
