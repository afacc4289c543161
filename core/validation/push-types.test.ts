// Issue 29: apns_push_type_override's other types. What each allows of a send body (the 422
// sentences, each written once in push-type-rules.ts), and what Herald then sends: the push type,
// priority, expiration and payload Apple documents for it, to the installs' token of that type.
import { expect } from 'chai';
import { apnsHeaderValues, DEFAULT_TTL_SECONDS } from '../payload/apns-headers.js';
import { buildApnsPayload } from '../payload/apns-payload.js';
import { topicOf } from '../payload/push-types.js';
import { APP, problems, validate } from './helpers.test-support.js';

const NOW = 1_000;
const textless = (type: string, changes: Record<string, unknown> = {}) => ({ contents: undefined, apns_push_type_override: type, ...changes });

describe('apns_push_type_override: every push type with a token of its own', () => {
  const sent: Array<[string, Record<string, unknown>, { priority?: number; expiration: number }, unknown, string]> = [
    ['voip', { data: { call: '7' } }, { priority: 10, expiration: NOW + DEFAULT_TTL_SECONDS }, { aps: {}, custom: { i: '9999999999999999999', a: { call: '7' } } }, '.voip'],
    ['location', { priority: 5 }, { priority: 5, expiration: NOW + DEFAULT_TTL_SECONDS }, { aps: {}, custom: { i: '9999999999999999999' } }, '.location-query'],
    ['location', {}, { priority: 10, expiration: NOW + DEFAULT_TTL_SECONDS }, { aps: {}, custom: { i: '9999999999999999999' } }, '.location-query'],
    ['complication', { ttl: 60 }, { expiration: NOW + 60 }, { aps: {}, custom: { i: '9999999999999999999' } }, '.complication'],
    ['pushtotalk', { data: { speaker: 'Ann' } }, { priority: 10, expiration: 0 }, { aps: {}, custom: { i: '9999999999999999999', a: { speaker: 'Ann' } } }, '.voip-ptt'],
    ['pushtotalk', { ttl: 0, priority: 7 }, { priority: 10, expiration: 0 }, { aps: {}, custom: { i: '9999999999999999999' } }, '.voip-ptt'],
    ['widgets', {}, { expiration: NOW + DEFAULT_TTL_SECONDS }, { aps: { 'content-changed': true } }, '.push-type.widgets'],
    ['controls', { priority: 10, ttl: 0 }, { priority: 10, expiration: 0 }, { aps: { 'content-changed': true } }, '.push-type.controls'],
  ];
  for (const [type, changes, headers, payload, suffix] of sent) {
    it(`sends ${type} ${JSON.stringify(changes)} as Apple documents it, to the ${type} tokens`, () => {
      const req = validate(textless(type, changes));
      expect(req.target.pushToken).to.equal(type);
      expect(apnsHeaderValues(req, NOW)).to.deep.equal({ pushType: type, ...headers });
      expect(JSON.parse(buildApnsPayload(req, 'en'))).to.deep.equal(payload);
      expect(topicOf('com.example.news', type)).to.equal(`com.example.news${suffix}`);
    });
  }

  it('leaves alert and background pushes on the install token', () => {
    expect(validate({}).target.pushToken).to.equal(undefined);
    expect(validate(textless('background')).target.pushToken).to.equal(undefined);
  });

  const carries = (type: string, fields: string) =>
    `A ${type} push (apns_push_type_override ${type}) carries only data, for the app's own handler, so it cannot carry ${fields}. Remove them, or send an alert.`;
  const reloads = (type: string, fields: string) =>
    `A ${type} push (apns_push_type_override ${type}) carries only aps.content-changed (the system reloads the widget or control), so it cannot carry ${fields}. Remove them, or send an alert.`;
  const refused: Array<[Record<string, unknown>, string[]]> = [
    [{ apns_push_type_override: 'voip' }, [carries('voip', 'contents')]],
    [textless('voip', { ios_badgeCount: 1 }), [carries('voip', 'ios_badgeCount')]],
    [textless('voip', { content_available: true }), [carries('voip', 'content_available')]],
    [textless('location', { headings: { en: 'Where are you?' }, ios_sound: 'ping.caf', url: 'https://example.com' }), [carries('location', 'headings, ios_sound, url')]],
    [textless('complication', { buttons: [{ id: 'a', text: 'A' }] }), [carries('complication', 'buttons')]],
    [textless('widgets', { data: { k: 'v' } }), [reloads('widgets', 'data')]],
    [textless('controls', { app_url: 'myapp://x', mutable_content: true }), [reloads('controls', 'mutable_content, app_url')]],
    [textless('pushtotalk', { priority: 6 }), ['priority of a pushtotalk push must be from 7 to 10 (Apple delivers pushtotalk pushes at priority 10), or absent.']],
    [textless('location', { priority: 3 }), ['priority of a location push must be from 4 to 10 (Apple delivers location pushes at priority 5 or 10), or absent.']],
    [textless('pushtotalk', { ttl: 1 }), ['ttl of a pushtotalk push must be 0 or absent: Apple delivers pushtotalk pushes now or never (apns-expiration 0).']],
    [textless('pushtotalk', { ttl: 60, priority: 1, ios_sound: 'x' }), [
      carries('pushtotalk', 'ios_sound'),
      'priority of a pushtotalk push must be from 7 to 10 (Apple delivers pushtotalk pushes at priority 10), or absent.',
      'ttl of a pushtotalk push must be 0 or absent: Apple delivers pushtotalk pushes now or never (apns-expiration 0).',
    ]],
  ];
  for (const [changes, messages] of refused) {
    it(`refuses ${JSON.stringify(changes).slice(0, 90)}`, () => expect(problems(() => validate(changes))).to.deep.equal(messages));
  }

  it("refuses a location push for an app whose credentials are a certificate (Apple: token-based connections only); a push key, or another type, passes", () => {
    const certificate = { app: { ...APP, credentialsKind: 'certificate' as const } };
    expect(problems(() => validate(textless('location'), certificate))).to.deep.equal([
      "A location push needs the app's push key (.p8): Apple takes location pushes over token-based connections only, and this app's credentials are a certificate.",
    ]);
    expect(validate(textless('location'), { app: { ...APP, credentialsKind: 'token' } }).target.pushToken).to.equal('location');
    expect(validate(textless('voip'), certificate).target.pushToken).to.equal('voip');
    expect(validate({}, certificate).apns.pushTypeOverride).to.equal(undefined);
  });
});
