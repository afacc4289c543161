// A 1 MB body of nested brackets once held the api's event loop for seconds inside
// JSON.parse; its depth is now checked by one scan before parsing.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { makeApp, type TestApp } from '../support/apps.js';
import { MAX_JSON_DEPTH, TOO_DEEP, nestsDeeperThan } from '../../api/middleware/json-body.js';

describe('deeply nested JSON bodies', () => {
  const env = useTestEnv();
  const api = useTestApi(env);
  let app: TestApp;
  before(async () => {
    app = await makeApp(env.pool);
  });

  it('counts only brackets outside strings, escapes included', () => {
    expect(nestsDeeperThan('{"a":"[[[[[[\\"[[[["}', 2)).to.equal(false);
    expect(nestsDeeperThan('[[[1]]]', 2)).to.equal(true);
    expect(nestsDeeperThan('[[1],[2],[3]]', 2)).to.equal(false);
  });

  for (const [name, path, key] of [
    ['the send call', '/api/v1/notifications', true],
    ['the anonymous SDK call', '/api/v1/apps/APP/subscriptions', false],
  ] as const) {
    it(`refuses 300,000 nested arrays on ${name} with a 400 naming the depth`, async () => {
      const rawBody = '{"data":' + '['.repeat(300_000) + ']'.repeat(300_000) + '}';
      const res = await api.request('POST', path.replace('APP', app.app.id), {
        rawBody, key: key ? app.key : undefined, headers: { 'content-type': 'application/json' },
      });
      expect(res.status).to.equal(400);
      expect(res.body.errors).to.deep.equal([TOO_DEEP]);
    });
  }

  it(`accepts a body nested ${MAX_JSON_DEPTH} levels`, async () => {
    let data: unknown = 'leaf';
    for (let i = 0; i < MAX_JSON_DEPTH - 2; i++) data = { d: data };
    const res = await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, include_external_ids: ['a'], data: { k: data } } });
    expect(res.status).to.be.below(300);
  });
});
