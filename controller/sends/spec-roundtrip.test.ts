// The send body's one schema, checked end to end: every body the api accepts comes back unchanged
// through a Send spec, and validates against the OpenAPI request schema and the CRD's spec schema.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Ajv } from 'ajv';
import { expect } from 'chai';
import fc from 'fast-check';
import { schemas } from '../../api/openapi/schemas.js';
import { ValidationError } from '../../core/errors.js';
import { SEND_BODY_FIELDS } from '../../core/validation/send-body-schema.js';
import { validateSendRequest } from '../../core/validation/validate-send.js';
import { sendsCrdDocument } from '../../tools/crd/sends-crd.js';
import { APNS_SPEC_FIELDS, FIELDS_KEPT_UNDER_ANOTHER_NAME, PLATFORM_SPEC_FIELDS, restBody, specFromRequest } from './spec.js';
import { ANDROID_SPEC_FIELDS } from '../../core/validation/android-options.js';

const APP = { id: '8e9f1c2a-4b5d-4e6f-9a0b-1c2d3e4f5a6b', bundleId: 'dev.herald.demo', segmentNames: ['Power users'] };
const NOW = new Date('2098-12-31T00:00:00Z');
const json = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

const openApi = new Ajv2020({ strict: false }).addFormat('int32', true).compile(schemas.SendRequest);
const crdSpec = (() => {
  const spec = sendsCrdDocument().spec.versions[0].schema.openAPIV3Schema.properties.spec;
  // x-kubernetes-* are the apiserver's keywords; the structure below them is plain JSON Schema.
  const strip = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(strip);
    if (typeof node !== 'object' || node === null) return node;
    return Object.fromEntries(Object.entries(node).filter(([k]) => !k.startsWith('x-kubernetes-')).map(([k, v]) => [k, strip(v)]));
  };
  return new Ajv({ strict: false }).addFormat('int32', true).compile(strip(spec) as object);
})();

const word = fc.stringMatching(/^[A-Za-z0-9]{1,12}$/);
const texts = (max: number) => fc.dictionary(fc.constantFrom('en', 'fr', 'de', 'pt-BR'), fc.string({ minLength: 1, maxLength: max }), { minKeys: 1 });
const target = fc.oneof(
  fc.constant({ included_segments: ['Power users'] }),
  // Several segments (issue 38): their union, kept in the order given.
  fc.record({ included_segments: fc.shuffledSubarray(['Power users', 'Active Users', 'Inactive Users', 'Subscribed Users'], { minLength: 2 }) }),
  fc.record({ tag: fc.record({ key: word, relation: fc.constantFrom('=', '!=', '>', '<'), value: word }) }),
  fc.record({ filters: fc.tuple(fc.record({ field: fc.constant('tag'), key: word, relation: fc.constantFrom('exists', 'not_exists') })) }),
  fc.record({
    filters: fc.constant([
      { field: 'tag', key: 'level', relation: '>', value: '10' },
      { field: 'language', relation: '=', value: 'en' },
      { operator: 'OR' },
      { field: 'last_session', relation: '<', hours_ago: '24' },
      { field: 'amount_spent', relation: '>', value: '4.99' },
    ]),
    excluded_segments: fc.constant(['Inactive Users']),
  }),
  fc.record({ include_external_ids: fc.uniqueArray(word, { minLength: 1, maxLength: 5 }) }),
  fc.record({ include_aliases: fc.record({ external_id: fc.uniqueArray(word, { minLength: 1, maxLength: 5 }) }) }),
  // Another label: the spec keeps it as include_aliases (an external_id list is include_external_ids).
  fc.record({ include_aliases: fc.record({ crm_id: fc.uniqueArray(word, { minLength: 1, maxLength: 5 }) }) }),
  fc.record({ include_subscription_ids: fc.uniqueArray(fc.uuid({ version: 4 }), { minLength: 1, maxLength: 3 }) }),
);
const alertFields = fc.record(
  {
    contents: texts(200),
    headings: texts(60),
    subtitle: texts(60),
    url: fc.constantFrom('https://x.example/a', 'myapp://inbox'),
    app_url: fc.constant('https://x.example/a'),
    big_picture: fc.constant('https://x.example/i.png'),
    data: fc.dictionary(word, fc.oneof(word, fc.integer(), fc.boolean()), { maxKeys: 4 }),
    buttons: fc.constant([{ id: 'o', text: 'Open' }]),
    send_after: fc.constantFrom('2099-01-01T09:30:00+02:00', '2099-01-02T00:00:00Z'),
    delayed_option: fc.constantFrom('timezone', 'last-active'),
    delivery_time_of_day: fc.constantFrom('9:00AM', '21:45'),
    throttle_rate_per_minute: fc.oneof(fc.integer({ min: 1, max: 100_000 }), fc.constant('600')),
    idempotency_key: word,
    ttl: fc.integer({ min: 0, max: 2_419_200 }),
    priority: fc.integer({ min: 1, max: 10 }),
    collapse_id: fc.stringMatching(/^[ -~]{1,64}$/),
    ios_badgeType: fc.constantFrom('None', 'SetTo', 'Increase'),
    ios_badgeCount: fc.integer({ min: 0, max: 99 }),
    ios_sound: fc.constantFrom('ping.aiff', 'default'),
    thread_id: word,
    summary_arg: word,
    summary_arg_count: fc.integer({ min: 0, max: 100 }),
    ios_interruption_level: fc.constantFrom('passive', 'active', 'time_sensitive', 'critical'),
    ios_relevance_score: fc.double({ min: 0, max: 1, noNaN: true }),
    target_content_identifier: word,
    mutable_content: fc.boolean(),
    apns_alert: fc.record({ 'loc-key': word, 'loc-args': fc.array(word, { maxLength: 3 }) }, { requiredKeys: [] }),
    content_available: fc.boolean(),
    android_channel_id: word,
    existing_android_channel_id: word,
    small_icon: word,
    android_accent_color: fc.stringMatching(/^[0-9A-Fa-f]{8}$/),
    android_sound: word,
    android_group: word,
    isIos: fc.boolean(),
    isAndroid: fc.boolean(),
    name: word,
    custom_data: fc.dictionary(word, fc.oneof(word, fc.integer(), fc.array(word, { maxLength: 2 })), { maxKeys: 3 }),
  },
  { requiredKeys: ['contents'] },
);
const backgroundFields = fc.record(
  { content_available: fc.constant(true), data: fc.dictionary(word, word, { maxKeys: 3 }), ttl: fc.integer({ min: 0, max: 86_400 }), priority: fc.integer({ min: 4, max: 6 }), collapse_id: word, name: word },
  { requiredKeys: ['content_available'] },
);
const body = fc.tuple(target, fc.oneof(alertFields, backgroundFields)).map(([t, f]) => ({ app_id: APP.id, ...t, ...f }) as Record<string, unknown>);

function accepted(raw: Record<string, unknown>) {
  try {
    return validateSendRequest({ body: raw, app: APP, now: NOW });
  } catch (error) {
    if (error instanceof ValidationError) return undefined; // a body the api refuses is out of scope
    throw error;
  }
}

describe('the send body has one schema', () => {
  it('every accepted body round-trips REST → Send spec → REST unchanged and fits the OpenAPI and CRD schemas', () => {
    let seen = 0;
    fc.assert(
      fc.property(body, (raw) => {
        const req = accepted(raw);
        if (!req) return;
        seen++;
        const spec = json(specFromRequest('demo', json(req)));
        expect(crdSpec(spec), JSON.stringify(crdSpec.errors)).to.equal(true);
        const again = restBody(spec, APP.id);
        expect(openApi(again), JSON.stringify(openApi.errors)).to.equal(true);
        expect(json(validateSendRequest({ body: again, app: APP, now: NOW }))).to.deep.equal(json(req));
      }),
      { numRuns: 300 },
    );
    expect(seen, 'accepted bodies among the generated ones').to.be.greaterThan(100);
  });

  it('every field of the schema is mapped back into a Send spec or named as kept under another name', () => {
    const mapped = new Set<string>([
      ...Object.keys(APNS_SPEC_FIELDS),
      ...Object.keys(ANDROID_SPEC_FIELDS),
      ...PLATFORM_SPEC_FIELDS,
      ...FIELDS_KEPT_UNDER_ANOTHER_NAME,
      'contents', 'headings', 'subtitle', 'included_segments', 'tag', 'filters', 'excluded_segments', 'include_subscription_ids', 'include_external_ids',
      'include_aliases', 'send_after', 'delayed_option', 'delivery_time_of_day', 'url', 'big_picture', 'data', 'buttons',
      'throttle_rate_per_minute', 'idempotency_key', 'name', 'custom_data',
    ]);
    expect(SEND_BODY_FIELDS.filter((f) => !mapped.has(f))).to.deep.equal([]);
  });
});
