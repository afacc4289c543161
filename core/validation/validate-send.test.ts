import { expect } from 'chai';
import { ValidationError } from '../errors.js';
import { validateSendRequest } from './validate-send.js';
import { APP, NOW, body, problems, validate } from './helpers.test-support.js';

describe('validateSendRequest: an accepted body', () => {
  it('builds the SendRequest with defaults', () => {
    expect(validate()).to.deep.equal({
      appId: APP.id,
      target: { kind: 'segment', segment: 'Subscribed Users' },
      contents: { en: 'Hello' },
      defaultLanguage: 'en',
      apns: {},
    });
  });

  it('ignores unknown fields and treats null fields as absent', () => {
    const req = validate({ android_channel_id: 'c7', headings: null, url: null, some_future_field: { x: 1 } });
    expect(req).to.not.have.property('headings');
    expect(req).to.not.have.property('url');
    expect(req).to.not.have.property('android_channel_id');
  });

  it('treats an undefined field as absent, as null: a required one is refused by name, not by an empty 422', () => {
    // Straight to the validator: body() leaves an undefined change out.
    const run = (changes: Record<string, unknown>) => validateSendRequest({ body: { ...body(), ...changes }, app: APP, now: NOW });
    expect(run({ headings: undefined, url: undefined })).to.not.have.property('headings');
    expect(problems(() => run({ contents: undefined }))).to.deep.equal([
      'contents is required: the message text keyed by language code, such as {"en": "Hello"}.',
    ]);
  });

  it('takes every optional field into the request', () => {
    const req = validate({
      headings: { en: 'News' },
      url: 'https://example.com/a',
      big_picture: 'https://cdn.example.com/p.png',
      data: { order: 12 },
      buttons: [{ id: 'read', text: 'Read', icon: 'ignored' }],
      bundle_id: APP.bundleId,
      throttle_rate_per_minute: 600,
      idempotency_key: 'order-12',
      send_after: '2026-03-02T12:00:00Z',
      ttl: 3600,
      priority: 10,
      collapse_id: 'news',
      ios_badgeType: 'SetTo',
      ios_badgeCount: 2,
    });
    expect(req).to.deep.include({
      headings: { en: 'News' },
      url: 'https://example.com/a',
      imageUrl: 'https://cdn.example.com/p.png',
      data: { order: '12' },
      button: { id: 'read', text: 'Read' },
      throttleRatePerMinute: 600,
      idempotencyKey: 'order-12',
      apns: { ttlSeconds: 3600, priority: 10, collapseId: 'news', badgeType: 'SetTo', badgeCount: 2 },
    });
    expect(req.sendAfter?.toISOString()).to.equal('2026-03-02T12:00:00.000Z');
  });

  it("does not match app_id to the key (the route's 403) and uses the app's id", () => {
    expect(validate({ app_id: 'ANOTHER' }).appId).to.equal(APP.id);
  });
});

describe('validateSendRequest: shapes and types', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['app_id missing', { app_id: undefined }, "app_id is required: the App ID of the key's app."],
    ['app_id a number', { app_id: 7 }, "app_id is required: the App ID of the key's app."],
    ['contents missing', { contents: undefined }, 'contents is required: the message text keyed by language code, such as {"en": "Hello"}.'],
    ['contents a string', { contents: 'Hello' }, 'contents must be an object of language code to text.'],
    ['contents with a number', { contents: { en: 5 } }, 'contents must be an object of language code to text.'],
    ['headings an array', { headings: ['x'] }, 'headings must be an object of language code to text.'],
    ['included_segments a string', { included_segments: 'All' }, 'included_segments must be an array of segment names.'],
    ['tag a string', { included_segments: undefined, tag: 'level' }, 'tag must be an object such as {"key": "level", "relation": ">", "value": "10"}.'],
    ['ids not strings', { included_segments: undefined, include_subscription_ids: [1] }, 'include_subscription_ids must be an array of Subscription IDs.'],
    ['external ids an object', { included_segments: undefined, include_external_ids: {} }, 'include_external_ids must be an array of External IDs.'],
    ['data an array', { data: ['x'] }, 'data must be an object of key to value.'],
    ['button without text', { buttons: [{ id: 'a' }] }, 'buttons must be an array with one object that has id and text, both text.'],
    ['url a number', { url: 5 }, 'url must be text: an https address or an address handled by the app.'],
    ['send_after a number', { send_after: 1443128400 }, 'send_after must be a date and time as text, such as 2026-11-24T14:00:00-07:00.'],
    ['ttl negative', { ttl: -1 }, 'ttl is a whole number of seconds from 0 to 2419200.'],
    ['priority 11', { priority: 11 }, 'priority is a whole number from 1 to 10.'],
    ['badge type unknown', { ios_badgeType: 'Add' }, 'ios_badgeType is one of None, SetTo or Increase.'],
    ['badge count decimal', { ios_badgeType: 'SetTo', ios_badgeCount: 1.5 }, 'ios_badgeCount is a whole number.'],
  ];
  for (const [name, changes, message] of cases) {
    it(`${name} → "${message}"`, () => {
      expect(problems(() => validate(changes))).to.deep.equal([message]);
    });
  }

  for (const raw of [null, [], 'text', 5]) {
    it(`a body ${JSON.stringify(raw)} → one sentence`, () => {
      expect(problems(() => validateSendRequest({ body: raw, app: APP, now: NOW }))).to.deep.equal([
        'The request body must be a JSON object.',
      ]);
    });
  }
});

describe('validateSendRequest: several problems at once', () => {
  it('reports every independent problem in one 422', () => {
    const messages = problems(() =>
      validate({
        contents: { en: 5 },
        buttons: [{ id: 'a', text: 'b' }, { id: 'c', text: 'd' }],
        url: 'javascript:alert(1)',
        throttle_rate_per_minute: 0,
        bundle_id: 'com.other',
      }),
    );
    expect(messages).to.have.members([
      'contents must be an object of language code to text.',
      'Send one button.',
      'url may not use the javascript: scheme; use https or an address handled by the app.',
      'throttle_rate_per_minute is a whole number from 1 to 100000.',
      "bundle_id is not this app's bundle id (com.example.news).",
    ]);
  });

  it('throws the error family class, with status 422 and expose', () => {
    try {
      validate({ buttons: [{ id: 'a', text: 'b' }, { id: 'c', text: 'd' }] });
      expect.fail('no error');
    } catch (error) {
      expect(error).to.be.instanceOf(ValidationError);
      expect(error).to.include({ status: 422, expose: true, name: 'ValidationError' });
    }
  });

  it('leaves the input body unchanged', () => {
    const input = body({ data: { k: 1 }, headings: null });
    const copy = structuredClone(input);
    validateSendRequest({ body: input, app: APP, now: NOW });
    expect(input).to.deep.equal(copy);
  });
});

describe('validateSendRequest: more broken fields than a 422 names', () => {
  // The fuzzer's counterexample: 8 broken keys inside contents and ios_attachments filled the
  // answer's 10 fields, and `tag` as text, past the cap, stayed in the body and reached the
  // target rules (a TypeError, not a 422).
  it('drops every broken field before the rules read the body, named or not', () => {
    const hostile = {
      contents: { '': 0, ' ': 0, '!': null, '"': null },
      ios_attachments: { '': null, ' ': null, '!': 0, '"': null },
      thread_id: {},
      tag: '2026-03-02T12:00:00Z',
      app_id: 0,
    };
    let thrown: unknown;
    try {
      validateSendRequest({ body: { ...body(), ...hostile }, app: APP, now: NOW });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).to.be.instanceOf(ValidationError);
    expect((thrown as ValidationError).messages.length).to.be.within(1, 10);
  });
});
