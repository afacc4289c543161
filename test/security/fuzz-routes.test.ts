// Property-based tests (fast-check) over the HTTP routes: random and mutated bodies,
// headers, ids and encodings, with a valid key, a wrong one or none (the anonymous SDK calls,
// the Live Activity token calls among them).
// Every answer is below 500 and, when an error, the contract's {"errors": [sentences]} shape.
import { expect } from 'chai';
import fc from 'fast-check';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { makeApp, type TestApp } from '../support/apps.js';

describe('fuzz: HTTP routes', function () {
  this.timeout(120_000);
  const env = useTestEnv();
  const api = useTestApi(env);
  let app: TestApp;
  let subscription: string;

  before(async () => {
    app = await makeApp(env.pool);
    const res = await api.request('POST', `/api/v1/apps/${app.app.id}/subscriptions`, { body: { token: 'ab'.repeat(32) } });
    subscription = res.body.id;
  });

  it('answers every request below 500, errors in the {"errors": [...]} shape', async () => {
    // Built here, once the app and its install exist.
    const id = () =>
      fc.oneof(
        fc.constantFrom('1', '0', '-1', '99999999999999999999', 'abc', '%00', '%E0%A4%A', '%ZZ', '..%2F..%2Fetc', '%F0%9F%98%80'),
        fc.uuid(),
        fc.string({ maxLength: 80 }).map(encodeURIComponent),
        fc.constant(app.app.id),
        fc.constant(subscription),
      );
    const path = fc.oneof(
      fc.constant('/api/v1/notifications'),
      id().map((x) => `/api/v1/notifications/${x}`),
      id().map((x) => `/api/v1/notifications/${x}/opened`),
      id().map((x) => `/api/v1/apps/${x}/subscriptions`),
      fc.tuple(id(), id()).map(([a, s]) => `/api/v1/apps/${a}/subscriptions/${s}`),
      fc.tuple(id(), id()).map(([a, x]) => `/api/v1/apps/${a}/live_activities/${x}/token`),
      fc.tuple(id(), id(), id()).map(([a, x, s]) => `/api/v1/apps/${a}/live_activities/${x}/token/${s}`),
      fc.tuple(id(), id(), id(), id()).map(([a, x, s, h]) => `/api/v1/apps/${a}/live_activities/${x}/channel?subscription_id=${s}&external_id_auth_hash=${h}`),
      fc.tuple(id(), id(), id()).map(([a, x, s]) => `/api/v1/apps/${a}/activities/tokens/start/${x}/subscriptions/${s}`),
      fc.tuple(id(), id(), fc.oneof(id(), fc.constantFrom('voip', 'widgets', 'mdm'))).map(([a, s, t]) => `/api/v1/apps/${a}/subscriptions/${s}/push_tokens/${t}`),
      fc.tuple(id(), id()).map(([a, x]) => `/api/v1/apps/${a}/live_activities/${x}/notifications`),
      fc.tuple(id(), id()).map(([a, x]) => `/api/v1/apps/${a}/activities/activity/${x}`),
      // OneSignal's v1 device calls (issue 38), with a key or app-facing.
      fc.constant('/api/v1/players'),
      fc.tuple(id(), fc.constantFrom('', '/on_session', '/on_purchase', '/on_focus')).map(([x, r]) => `/api/v1/players/${x}${r}`),
      fc.tuple(id(), id()).map(([l, o]) => `/api/v1/players?app_id=${app.app.id}&limit=${l}&offset=${o}`),
      fc.tuple(id(), id()).map(([a, x]) => `/api/v1/apps/${a}/users/${x}`),
      id().map((a) => `/api/v1/apps/${a}/ios_params.js?player_id=x`),
      fc.constantFrom('/healthz', '/api/v1/notifications?app_id=%FF&limit=-1', '/api/v1//notifications', '/%', '/', '/notifications', '/v1/players'),
    );
    const sendBody = () => ({ app_id: app.app.id, contents: { en: 'Hi' }, include_subscription_ids: [subscription] });
    const json = fc.oneof(
      fc.jsonValue({ maxDepth: 4 }),
      fc.dictionary(fc.constantFrom('app_id', 'contents', 'token', 'subscription_id', 'tags', 'external_id', 'send_after', 'data', 'language', 'timezone', 'push_token', 'activity_token', 'device_type',
        'event', 'event_updates', 'event_attributes', 'activity_id', 'stale_date', 'dismissal_date', 'priority', 'ios_sound', 'sound', 'headings',
        'identifier', 'notification_types', 'external_user_id', 'timezone_id', 'session_count', 'playtime', 'amount_spent', 'purchases', 'state', 'active_time', 'email_subject', 'include_player_ids'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 })
        .map((changes) => ({
          ...sendBody(), token: 'cd'.repeat(32), identifier: 'cd'.repeat(32), state: 'ping', active_time: 1, subscription_id: subscription, push_token: 'ef'.repeat(32), activity_token: 'ef'.repeat(32), device_type: 0,
          event: 'update', event_updates: { score: '1-0' }, event_attributes: { home: 'A' }, activity_id: 'match-7', ...changes,
        })),
    );
    const body = fc.oneof(
      json.map((v) => Buffer.from(JSON.stringify(v) ?? 'null')),
      fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
      fc.constantFrom(Buffer.from([0xc3, 0x28, 0x7b]), Buffer.from('{"a":'), Buffer.from('[' .repeat(5000)), Buffer.from('{"__proto__":{"x":1}}')),
    );
    const headers = fc.record({
      'content-type': fc.constantFrom('application/json', 'application/json; charset=utf-16', 'application/json; charset=latin1', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=nope'),
      authorization: fc.oneof(fc.constant(undefined), fc.constant(`Key ${app.key}`), fc.string({ maxLength: 120 }).map((s) => `Key ${s}`), fc.constantFrom('Basic Zm9vOmJhcg==', 'Key', 'Bearer x')),
      'idempotency-key': fc.option(fc.string({ maxLength: 100 }).map((s) => s.replace(/[^\x20-\x7e]/g, 'x')), { nil: undefined }),
      'content-encoding': fc.constantFrom(undefined, 'gzip', 'identity', 'br'),
    }, { requiredKeys: ['content-type'] });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'PUT'), path, body, headers, async (method, p, b, h) => {
        const sent: Record<string, string> = {};
        for (const [k, v] of Object.entries(h)) if (v !== undefined) sent[k] = v;
        const res = await fetch(api.url + p, { method, headers: sent, body: method === 'GET' ? undefined : b });
        const text = await res.text();
        expect(res.status, `${method} ${p} → ${res.status} ${text.slice(0, 200)}`).to.be.below(500);
        if (res.status >= 400 && (res.headers.get('content-type') ?? '').includes('json')) {
          const parsed = JSON.parse(text);
          expect(parsed.errors, text.slice(0, 200)).to.be.an('array').that.is.not.empty;
          for (const e of parsed.errors) expect(e).to.be.a('string');
        }
      }),
      { numRuns: 300 },
    );
  });
});
