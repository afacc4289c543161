// The OpenAPI 3.1 document: valid by the OpenAPI 3.1 schema and its rules (@readme/openapi-parser),
// served at /api/v1/openapi.json without a key, naming exactly the routes the api has; and the checker
// the api suites use refuses an answer the document does not describe (so the check can fail).
import { expect } from 'chai';
import { validate, compileErrors } from '@readme/openapi-parser';
import { openApiDocument } from '../../api/document.js';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { checkAgainstOpenApi } from '../support/openapi-check.js';

describe('OpenAPI document', () => {
  const env = useTestEnv({ redis: false });
  const api = useTestApi(env);

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await validate(structuredClone(openApiDocument) as never);
    expect(result.valid, result.valid ? '' : compileErrors(result)).to.equal(true);
    expect(result.specification).to.equal('OpenAPI');
  });

  it('is served at /api/v1/openapi.json without a key', async () => {
    const res = await api.request('GET', '/api/v1/openapi.json');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal(JSON.parse(JSON.stringify(openApiDocument)));
  });

  it('documents exactly the /api/v1 calls the router serves: none undocumented, none documented unserved', async () => {
    const { createApi } = await import('../../api/server.js');
    const koa = createApi(api.deps);
    const router = (koa.middleware.find((m) => 'router' in m) as unknown as { router: { stack: { path: string; methods: string[] }[] } }).router;
    const served = router.stack
      .filter((l) => l.path.startsWith('/api/v1/'))
      .flatMap((l) => l.methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${l.path.slice('/api/v1'.length).replace(/:(\w+)/g, '{$1}')}`));
    const documented = Object.entries(openApiDocument.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
      Object.keys(ops).filter((k) => ['get', 'put', 'post', 'delete', 'patch'].includes(k)).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(new Set(served).size, 'a call mounted twice').to.equal(served.length);
    expect([...served].sort()).to.deep.equal([...documented].sort());
  });

  it('refuses an answer the document does not describe', () => {
    expect(() => checkAgainstOpenApi('GET', '/api/v1/notifications/1', 200, 'application/json', { id: 1 })).to.throw(/does not match/);
    expect(() => checkAgainstOpenApi('GET', '/api/v1/notifications/1', 418, 'application/json', {})).to.throw(/does not list/);
    expect(() => checkAgainstOpenApi('PUT', '/api/v1/apps/x/subscriptions', 200, 'application/json', {})).to.throw(/not documented/);
    expect(() => checkAgainstOpenApi('POST', '/api/v1/notifications', 422, 'application/json', { errors: ['x'] })).not.to.throw();
  });
});
