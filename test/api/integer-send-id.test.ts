// The contract's integer send id (issue 38 point 5): Herald answers createNotification with a
// number, and the official client's isMessageSent() helper tests for a string id, so it reads
// false for every Herald send; docs/api.md says what to read instead. Driven through the client.
import { expect } from 'chai';
import * as OneSignal from '@onesignal/node-onesignal';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { makeApp, type TestApp } from '../support/apps.js';
import { officialClient } from '../support/onesignal.js';

describe('api: the integer send id and the official client\'s isMessageSent()', () => {
  const env = useTestEnv();
  const api = useTestApi(env);
  let app: TestApp;

  before(async () => {
    app = await makeApp(env.pool);
  });

  it('a send accepted by Herald has a number id: isMessageSent() says false, `id !== undefined` and no `errors` say sent', async () => {
    const client = officialClient(api.url, app.key);
    const sent = await client.createNotification(Object.assign(new OneSignal.Notification(), { app_id: app.app.id, contents: { en: 'Hi' }, included_segments: ['Subscribed Users'] }));
    expect(sent.id).to.be.a('number');
    expect(OneSignal.isMessageSent(sent)).to.equal(false);
    expect(OneSignal.isMessageNotSent(sent)).to.equal(true);
    // What docs/api.md tells a client to read instead.
    expect(sent.id !== undefined && sent.id !== null && !sent.errors).to.equal(true);
    // The id reads the send back through the client.
    const read = await client.getNotification(app.app.id, String(sent.id));
    expect(read.id).to.equal(sent.id);
  });
});
