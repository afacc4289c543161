// A list send naming ids that match no subscribed install answers which ones, as OneSignal does
// (errors.invalid_aliases.external_id / errors.invalid_player_ids), and still goes to the others;
// with every id known, the answer has no errors at all.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { addDevices, makeApp, type TestApp } from '../support/apps.js';

describe('api: unknown ids of a list send', () => {
  const env = useTestEnv();
  const api = useTestApi(env);
  let app: TestApp;
  let ids: string[];

  before(async () => {
    app = await makeApp(env.pool);
    ids = await addDevices(env.pool, app.app.id, [{ external_id: 'alice' }, { external_id: 'bob' }, { external_id: 'carol', subscribed: false }]);
  });

  const send = (target: Record<string, unknown>) => api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, ...target } });

  it('lists unknown and unsubscribed external ids under errors.invalid_aliases.external_id', async () => {
    const res = await send({ include_aliases: { external_id: ['alice', 'nobody', 'carol', 'bob'] } });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ status: 'sending', estimate: 4 });
    expect(res.body.errors).to.deep.equal({ invalid_aliases: { external_id: ['nobody', 'carol'] } });
  });

  it('lists unknown subscription ids under errors.invalid_player_ids', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    const res = await send({ include_subscription_ids: [ids[0], unknown] });
    expect(res.body.errors).to.deep.equal({ invalid_player_ids: [unknown] });
  });

  it('has no errors when every id is known', async () => {
    const res = await send({ include_external_ids: ['alice', 'bob'] });
    expect(res.body).to.not.have.property('errors');
  });
});
