// A clear word for everything Herald does not serve (issue 38 point 2): each call of the official
// client @onesignal/node-onesignal 5.18.0 that Herald does not serve, made through the client,
// answers a 4xx whose sentence says what to do instead; email and SMS fields in a send say Herald
// sends push only; a 405 has the {"errors": [...]} body; GET / leads to the dashboard; a path
// without /api/v1 says so; getNotificationHistory and onesignal-node's notificationHistory take
// `email` (no email is sent: the link is in the answer).
import { expect } from 'chai';
import * as OneSignal from '@onesignal/node-onesignal';
import { Client } from 'onesignal-node';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { makeApp, type TestApp } from '../support/apps.js';
import { refused } from '../support/onesignal.js';
import { OTHER_APP } from '../../api/routes/app-view.js';

describe('api: a clear word for every call Herald does not serve', () => {
  const env = useTestEnv();
  const api = useTestApi(env);
  let app: TestApp;
  let client: OneSignal.DefaultApi;

  before(async () => {
    app = await makeApp(env.pool);
    // The Organization-key calls send organizationApiKey; Herald has no such key, so any value does.
    client = new OneSignal.DefaultApi(OneSignal.createConfiguration({ restApiKey: app.key, organizationApiKey: app.key, baseServer: new OneSignal.ServerConfiguration(`${api.url}/api/v1`, {}) }));
  });

  const APPS = /^(createApp|getApps|updateApp) needs an Organization API key, which Herald does not have \(each key belongs to one app\): an app is an App resource \(kubectl apply\) or `herald apps apply -f FILE`/;
  const KEYS = /needs an Organization API key, which Herald does not have \(each key belongs to one app\): make an app's keys with `herald keys create --app NAME`, the App resource's spec.apiKeys/;
  const JOURNEYS = /: journeys are not part of Herald: schedule sends with send_after or delayed_option/;
  const PUSH_ONLY = /: Herald sends push only; email and SMS are not part of Herald\.$/;

  it('answers each of the 19 calls with a 4xx saying what to do instead', async () => {
    const id = app.app.id;
    const j = 'journey-1';
    const calls: Array<[string, () => Promise<unknown>, number, RegExp]> = [
      ['createApp', () => client.createApp({ name: 'x' } as never), 403, APPS],
      ['getApps', () => client.getApps(), 403, APPS],
      ['updateApp', () => client.updateApp(id, { name: 'x' } as never), 403, APPS],
      ['createApiKey', () => client.createApiKey(id, {} as never), 403, KEYS],
      ['viewApiKeys', () => client.viewApiKeys(id), 403, KEYS],
      ['updateApiKey', () => client.updateApiKey(id, 'token-1', {} as never), 403, KEYS],
      ['deleteApiKey', () => client.deleteApiKey(id, 'token-1'), 403, KEYS],
      ['rotateApiKey', () => client.rotateApiKey(id, 'token-1'), 403, /^rotateApiKey needs an Organization API key.*`herald keys create --app NAME`.*`herald keys revoke`/],
      ['listAuditLogs', () => client.listAuditLogs('org-1'), 403, /^listAuditLogs needs an Organization API key.*Herald keeps no organization audit log/],
      ['getEmailReputation', () => client.getEmailReputation(id), 404, PUSH_ONLY],
      ['unsubscribeEmailWithToken', () => client.unsubscribeEmailWithToken(id, '1', 'tok'), 404, PUSH_ONLY],
      ['createCustomEvents', () => client.createCustomEvents(id, { events: [] } as never), 404, /^createCustomEvents: custom events are not part of Herald/],
      ['createJourney', () => client.createJourney(id, {} as never), 404, JOURNEYS],
      ['viewJourneys', () => client.viewJourneys(id), 404, JOURNEYS],
      ['viewJourney', () => client.viewJourney(id, j), 404, JOURNEYS],
      ['updateJourney', () => client.updateJourney(id, j, {} as never), 404, JOURNEYS],
      ['deleteJourney', () => client.deleteJourney(id, j), 404, JOURNEYS],
      ['updateJourneyNode', () => client.updateJourneyNode(id, j, 'node-1', {} as never), 404, JOURNEYS],
      ['viewJourneyStats', () => client.viewJourneyStats(id, j), 404, JOURNEYS],
    ];
    expect(calls).to.have.length(19);
    for (const [name, call, status, sentence] of calls) {
      const answer = await refused(call());
      expect(answer.code, name).to.equal(status);
      expect(answer.body.errors, name).to.have.length(1);
      expect(answer.body.errors[0], name).to.match(sentence);
      expect(answer.body.errors[0].startsWith(name), name).to.equal(true);
    }
  });

  it("serves getApp for the key's own app (its id, name, player counts, APNs environment, dates), and says so for another's", async () => {
    const sub = await api.request('POST', `/api/v1/apps/${app.app.id}/subscriptions`, { body: { token: 'ab'.repeat(32) } });
    await api.request('POST', `/api/v1/apps/${app.app.id}/subscriptions`, { body: { token: 'cd'.repeat(32), subscribed: false } });
    expect(sub.status).to.equal(201);
    const own = await client.getApp(app.app.id);
    expect(own).to.include({ id: app.app.id, name: app.app.name, players: 2, messageable_players: 1, apns_env: 'sandbox' });
    expect(own.created_at).to.be.a('string');
    const raw = await api.request('GET', `/api/v1/apps/${app.app.id}`, { key: app.key });
    expect(raw.status).to.equal(200);
    const other = await makeApp(env.pool);
    const refusedOther = await refused(client.getApp(other.app.id));
    expect([refusedOther.code, refusedOther.body.errors]).to.deep.equal([403, [OTHER_APP]]);
  });

  it('says "Herald sends push only" for email and SMS fields of a send, and takes push as the channel', async () => {
    const send = (fields: Record<string, unknown>) => api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, include_subscription_ids: [], ...fields } });
    const email = await send({ email_subject: 'Hello', email_body: '<p>x</p>' });
    expect(email.status).to.equal(422);
    expect(email.body.errors).to.deep.equal([
      'email_subject: Herald sends push only; email and SMS are not part of Herald.',
      'email_body: Herald sends push only; email and SMS are not part of Herald.',
    ]);
    expect((await send({ sms_from: '+15550100' })).body.errors).to.deep.equal(['sms_from: Herald sends push only; email and SMS are not part of Herald.']);
    expect((await send({ isEmail: true })).body.errors).to.deep.equal(['isEmail: Herald sends push only; email and SMS are not part of Herald.']);
    expect((await send({ target_channel: 'SMS' })).body.errors).to.deep.equal(['target_channel sms: Herald sends push only; leave it out or set it to push.']);
    for (const fine of [{ target_channel: 'push' }, { isEmail: false }, { email_subject: '' }]) expect((await send(fine)).status, JSON.stringify(fine)).to.equal(200);
    const estimate = await api.request('POST', '/api/v1/notifications/count-unsaved', { key: app.key, body: { app_id: app.app.id, included_segments: ['Subscribed Users'], include_email_tokens: ['a@example.com'] } });
    expect(estimate.body.errors).to.include('include_email_tokens: Herald sends push only; email and SMS are not part of Herald.');
  });

  it('answers a 405 with the errors body and its Allow header', async () => {
    const res = await fetch(`${api.url}/api/v1/notifications`, { method: 'PUT', headers: { authorization: `Key ${app.key}` } });
    expect(res.status).to.equal(405);
    expect(res.headers.get('allow')).to.equal('POST, HEAD, GET');
    expect(await res.json()).to.deep.equal({ errors: ['PUT is not a method of /api/v1/notifications: it takes POST, HEAD, GET.'] });
  });

  it('leads GET / to the dashboard', async () => {
    const res = await fetch(`${api.url}/`, { redirect: 'manual' });
    expect(res.status).to.equal(302);
    expect(res.headers.get('location')).to.equal('/dashboard/');
  });

  it('says a path lacks the /api/v1 prefix when it does, and only then', async () => {
    for (const path of ['/notifications', '/v1/players/abc', '/api/templates']) {
      const res = await fetch(`${api.url}${path}`, { headers: { authorization: `Key ${app.key}` } });
      expect(res.status, path).to.equal(404);
      const body = (await res.json()) as { errors: string[] };
      expect(body.errors[0], path).to.match(new RegExp(`^${path.replace(/\//g, '\\/')} lacks the /api/v1 prefix: Herald's REST calls are under /api/v1`));
    }
    const res = await fetch(`${api.url}/no/such/thing`);
    expect([res.status, await res.json()]).to.deep.equal([404, { errors: ['Not found.'] }]);
  });

  it('takes email in notificationHistory (onesignal-node and the official client): the link is in the answer', async () => {
    const sent = await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, include_subscription_ids: [] } });
    const v1 = new Client(app.app.id, app.key, { apiRoot: `${api.url}/api/v1` });
    const res = await v1.notificationHistory(String(sent.body.id), { events: 'sent', email: 'me@example.com' });
    expect(res.statusCode).to.equal(200);
    expect(res.body.success).to.equal(true);
    expect(res.body.destination_url).to.match(/\/api\/v1\/exports\/[A-Za-z0-9_-]{43}\.csv\.gz$/);
    const official = await client.getNotificationHistory(String(sent.body.id), Object.assign(new OneSignal.GetNotificationHistoryRequestBody(), { app_id: app.app.id, events: 'clicked', email: 'me@example.com' }));
    expect(official.success).to.equal(true);
  });
});
