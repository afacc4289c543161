import { expect } from 'chai';
import { apnsHeaderValues, DEFAULT_TTL_SECONDS } from '../payload/apns-headers.js';
import { APNS_PAYLOAD_LIMIT_BYTES, buildApnsPayload } from '../payload/apns-payload.js';
import { problems, validate } from './helpers.test-support.js';
import { COLLAPSE_ID_EDGE_SPACE } from './apns-options.js';

describe("OneSignal's iOS fields, by their wire names", () => {
  const mapped: Array<[Record<string, unknown>, Record<string, unknown>]> = [
    [{ priority: 1 }, { priority: 1 }],
    [{ priority: 3 }, { priority: 1 }],
    [{ priority: 4 }, { priority: 5 }],
    [{ priority: 6 }, { priority: 5 }],
    [{ priority: 7 }, { priority: 10 }],
    [{ ios_sound: 'ping.aiff' }, { sound: 'ping.aiff' }],
    [{ ios_category: 'INVITE', thread_id: 't', summary_arg: 'A', summary_arg_count: 3 }, { category: 'INVITE', threadId: 't', summaryArg: 'A', summaryArgCount: 3 }],
    [{ ios_interruption_level: 'time_sensitive', ios_relevance_score: 0.2 }, { interruptionLevel: 'time_sensitive', relevanceScore: 0.2 }],
    [{ target_content_identifier: 'w', mutable_content: true }, { targetContentId: 'w', mutableContent: true }],
    [{ apns_alert: { 'loc-key': 'K', 'loc-args': ['a'] } }, { alertExtras: { 'loc-key': 'K', 'loc-args': ['a'] } }],
    [{ content_available: true }, { contentAvailable: true }],
    [{ collapse_id: 'promo 1!' }, { collapseId: 'promo 1!' }],
  ];
  for (const [changes, apns] of mapped) {
    it(`maps ${JSON.stringify(changes)}`, () => expect(validate(changes).apns).to.deep.equal(apns));
  }

  it('keeps name and custom_data with the send, and subtitle per language', () => {
    const req = validate({ name: 'spring', custom_data: { c: [1] }, subtitle: { en: 'S', fr: '' } });
    expect(req).to.deep.include({ name: 'spring', customData: { c: [1] }, subtitle: { en: 'S' } });
  });

  it('keeps the template a send names, in lower case (the report names it), and nothing when it names none', () => {
    expect(validate({ template_id: 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11' }).templateId).to.equal('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11');
    expect(validate()).to.not.have.property('templateId');
  });

  it('takes external_id as the idempotency key', () => {
    expect(validate({ external_id: 'order-1' }).idempotencyKey).to.equal('order-1');
    expect(validate({ external_id: 'order-1', idempotency_key: 'order-1' }).idempotencyKey).to.equal('order-1');
  });

  it('accepts a background push without contents', () => {
    const req = validate({ contents: undefined, content_available: true, data: { k: 'v' } });
    expect(req.contents).to.deep.equal({});
    expect(JSON.parse(buildApnsPayload(req, 'en')).aps).to.deep.equal({ 'content-available': 1 });
    expect(apnsHeaderValues(req, 1000)).to.deep.equal({ pushType: 'background', priority: 5, expiration: 1000 + DEFAULT_TTL_SECONDS });
  });

  const refused: Array<[Record<string, unknown>, string]> = [
    [{ collapse_id: 'café-promo' }, 'collapse_id must be printable ASCII (letters, digits, space and punctuation), at most 64 bytes.'],
    // HTTP/2 carries no space at either end of a header value (RFC 9113 §8.2.1): accepted, such a
    // collapse_id failed every device of the send as Unframeable, nothing sent (issue 26 review).
    [{ collapse_id: 'promo ' }, COLLAPSE_ID_EDGE_SPACE],
    [{ collapse_id: ' promo' }, COLLAPSE_ID_EDGE_SPACE],
    [{ collapse_id: '   ' }, COLLAPSE_ID_EDGE_SPACE],
    [{ idempotency_key: 'a', external_id: 'b' }, 'idempotency_key and external_id differ: external_id is the older name of idempotency_key. Send one key.'],
    // fileprovider and mdm have no app-facing token in Herald (issue 29: every other type has one).
    [{ apns_push_type_override: 'mdm' }, 'apns_push_type_override is one of alert, background, voip, location, complication, pushtotalk, widgets, controls.'],
    [{ ios_interruption_level: 'loud' }, 'ios_interruption_level is one of passive, active, time_sensitive or critical.'],
    [{ ios_relevance_score: 2 }, 'ios_relevance_score is a number from 0 to 1.'],
    [{ ios_badgeType: 'Set' }, 'ios_badgeType is one of None, SetTo or Increase.'],
    [{ apns_alert: { 'action-loc-key': 'x' } }, 'apns_alert has "action-loc-key"; its keys are launch-image, title-loc-key, title-loc-args, subtitle-loc-key, subtitle-loc-args, loc-key, loc-args.'],
    [{ apns_alert: { 'loc-args': 'x' } }, 'apns_alert.loc-args must be an array of at most 20 texts of at most 256 characters.'],
    [{ ios_category: 'C', buttons: [{ id: 'a', text: 'A' }] }, 'ios_category and buttons both set the notification category. Send one of them.'],
    [{ thread_id: 't'.repeat(129) }, 'thread_id is longer than 128 characters.'],
    [{ name: 'n'.repeat(129) }, 'name is longer than 128 characters.'],
    [{ custom_data: { k: 'v'.repeat(3000) } }, 'custom_data is 3008 bytes as JSON; at most 2048 are kept.'],
    [{ contents: undefined, content_available: true, ios_sound: 'a.caf', ios_badgeType: 'SetTo', ios_badgeCount: 1 }, 'A background push (content_available without contents, or apns_push_type_override background) shows nothing, so it cannot carry ios_sound, ios_badgeType. Remove them, or send an alert.'],
    [{ apns_push_type_override: 'background' }, 'A background push (content_available without contents, or apns_push_type_override background) shows nothing, so it cannot carry contents. Remove them, or send an alert.'],
    [{ contents: undefined, content_available: true, priority: 10 }, 'priority of a background push must be from 4 to 6 (Apple delivers background pushes at priority 5), or absent.'],
    [{ contents: undefined }, 'contents is required: the message text keyed by language code, such as {"en": "Hello"}.'],
    [{ contents: undefined, apns_push_type_override: 'alert', content_available: true }, 'contents is required: the message text keyed by language code, such as {"en": "Hello"}.'],
  ];
  for (const [changes, message] of refused) {
    it(`refuses ${JSON.stringify(changes).slice(0, 80)}`, () => expect(problems(() => validate(changes))).to.deep.equal([message]));
  }

  it('counts the whole payload as Apple receives it against 4 KB: subtitle, sound, apns_alert included', () => {
    const fits = validate({ contents: { en: 'x' }, subtitle: { en: 'y'.repeat(120) }, apns_alert: { 'loc-args': Array(14).fill('z'.repeat(250)) } });
    expect(Buffer.byteLength(buildApnsPayload(fits, 'en'))).to.be.below(APNS_PAYLOAD_LIMIT_BYTES);
    expect(problems(() => validate({ apns_alert: { 'loc-args': Array(17).fill('z'.repeat(250)) } }))).to.deep.equal([
      'This notification is larger than 4KB. It is not cut short.',
    ]);
  });

  it('sends ttl as apns-expiration from the given moment; 0 is now or never', () => {
    expect(apnsHeaderValues(validate({ ttl: 60, collapse_id: 'c', priority: 10 }), 1000.7)).to.deep.equal({ pushType: 'alert', priority: 10, expiration: 1060, collapseId: 'c' });
    expect(apnsHeaderValues(validate({ ttl: 0 }), 1000).expiration).to.equal(0);
  });
});
