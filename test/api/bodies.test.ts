// DECISIONS "Bodies": malformed JSON 400, wrong content type 415, over 1 MB 413, the error body
// shape everywhere, and a 500 that names the request id and leaks nothing.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { startTestApi, useTestApi } from '../support/api-server.js';
import { makeApp, type TestApp } from '../support/apps.js';
import type { Pool } from '../../core/store/db.js';

describe('api: request bodies and error answers', () => {
  const env = useTestEnv();
  const api = useTestApi(env);
  let app: TestApp;

  before(async () => {
    app = await makeApp(env.pool);
  });

  const post = (rawBody: string, contentType = 'application/json') =>
    api.request('POST', '/api/v1/notifications', { key: app.key, rawBody, headers: { 'content-type': contentType } });

  it('answers malformed JSON with 400', async () => {
    const res = await post('{"app_id": ');
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.equal({ errors: ['The request body is not valid JSON.'] });
  });

  it('answers a JSON value that is not an object with 400', async () => {
    expect((await post('[1,2]')).status).to.equal(400);
  });

  it('answers another content type with 415', async () => {
    const res = await post('app_id=x', 'application/x-www-form-urlencoded');
    expect(res.status).to.equal(415);
    expect(res.body.errors).to.have.length(1);
  });

  it('answers a body over 1 MB with 413', async () => {
    const res = await post(JSON.stringify({ app_id: app.app.id, contents: { en: 'x'.repeat(1_100_000) } }));
    expect(res.status).to.equal(413);
    expect(res.body.errors[0]).to.match(/1 MB/);
  });

  it('answers an unknown path with a 404 error body', async () => {
    const res = await api.request('GET', '/api/v1/nothing-here');
    expect(res.status).to.equal(404);
    expect(res.body).to.have.property('errors');
  });

  it('answers an unexpected failure with 500 naming the request id, without internals', async () => {
    const broken = {
      query: async () => {
        throw new Error('relation "secret_table" does not exist at character 42');
      },
    } as unknown as Pool;
    const lines: string[] = [];
    const { pino } = await import('pino');
    const logger = pino({ level: 'error' }, { write: (line: string) => lines.push(line) });
    const brokenApi = await startTestApi(env, { pool: broken, logger });
    try {
      const res = await brokenApi.request('GET', '/api/v1/notifications/1', { key: app.key, headers: { 'x-request-id': 'req-test-500' } });
      expect(res.status).to.equal(500);
      expect(res.body.errors[0]).to.contain('req-test-500');
      expect(JSON.stringify(res.body)).not.to.match(/secret_table|relation|stack/);
      expect(lines.join('')).to.contain('req-test-500');
      expect(lines.join('')).not.to.contain(app.key);
    } finally {
      await brokenApi.close();
    }
  });
});
