// Property-based tests (fast-check) over send validation: any body, random or a valid
// body mutated field by field, is either accepted or refused with a 422 of short sentences;
// nothing else is ever thrown. The one-build 4 KB check agrees with building every language.
import { expect } from 'chai';
import fc from 'fast-check';
import { ValidationError } from '../../core/errors.js';
import { buildApnsPayload, largestPayloadBytes } from '../../core/payload/apns-payload.js';
import { parseSendAfter } from '../../core/time/send-after.js';
import { validateSendRequest } from '../../core/validation/validate-send.js';
import { APP, NOW, body } from '../../core/validation/helpers.test-support.js';

const FIELDS = [
  'app_id', 'contents', 'headings', 'included_segments', 'tag', 'filters', 'include_subscription_ids',
  'include_external_ids', 'include_aliases', 'send_after', 'delayed_option', 'delivery_time_of_day', 'url',
  'app_url', 'big_picture', 'ios_attachments', 'data', 'buttons', 'bundle_id', 'throttle_rate_per_minute',
  'idempotency_key', 'ttl', 'priority', 'collapse_id', 'ios_badgeType', 'ios_badgeCount', 'excluded_segments',
  'subtitle', 'ios_sound', 'ios_category', 'thread_id', 'summary_arg', 'summary_arg_count', 'ios_interruption_level',
  'ios_relevance_score', 'target_content_identifier', 'mutable_content', 'apns_alert', 'content_available',
  'apns_push_type_override', 'name', 'custom_data', 'external_id',
  '__proto__', 'constructor',
];

/** Values that stress each check: odd types, long and unicode strings, deep nesting. */
const hostileValue = fc.oneof(
  fc.anything({ maxDepth: 3 }),
  fc.string({ unit: 'grapheme', maxLength: 300 }),
  fc.dictionary(fc.string({ maxLength: 12 }), fc.oneof(fc.string({ maxLength: 40 }), fc.integer(), fc.constant(null)), { maxKeys: 30 }),
  fc.array(fc.string({ maxLength: 40 }), { maxLength: 30 }),
  fc.constantFrom('2026-03-02T12:00:00Z', ' '.repeat(100), 'Mon Mar 02 2026 05:00:00 GMT-0700 (PDT)', '9999999999999999999', '-1', 'NaN'),
);

function outcome(input: unknown, header?: string): void {
  try {
    validateSendRequest({ body: input, app: APP, now: NOW, idempotencyHeader: header });
  } catch (error) {
    expect(error).to.be.instanceOf(ValidationError);
    const messages = (error as ValidationError).messages;
    expect(messages.length).to.be.within(1, 60);
    for (const m of messages) {
      expect(m).to.be.a('string');
      expect(m.length, m.slice(0, 80)).to.be.below(400);
    }
  }
}

describe('fuzz: send validation', function () {
  this.timeout(60_000);

  it('any JSON value as the body: accepted or a 422 of short sentences', () => {
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 4 }), (v) => outcome(v)), { numRuns: 400 });
  });

  it('a valid body with fields replaced by hostile values', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom(...FIELDS), hostileValue, { maxKeys: 6 }),
        fc.option(fc.string({ maxLength: 100 }), { nil: undefined }),
        (changes, header) => outcome({ ...body(), ...changes }, header),
      ),
      { numRuns: 600 },
    );
  });

  it('send_after: any string is parsed or refused without throwing', () => {
    fc.assert(fc.property(fc.string({ maxLength: 64 }), (s) => void parseSendAfter(s)), { numRuns: 2000 });
  });

  it('the 4 KB check builds one payload yet measures the largest of every language', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 60 });
    const language = fc.constantFrom('en', 'fr', 'de', 'ja', 'pt', 'pt-BR', 'zh-Hans', 'es');
    fc.assert(
      fc.property(
        fc.dictionary(language, text, { minKeys: 1, maxKeys: 8 }),
        fc.option(fc.dictionary(language, text, { maxKeys: 8 }), { nil: undefined }),
        (contents, headings) => {
          let req;
          try {
            req = validateSendRequest({ body: body({ contents, headings }), app: APP, now: NOW });
          } catch (error) {
            if (error instanceof ValidationError) return; // blank texts only: refused, nothing to measure
            throw error;
          }
          const each = Object.keys(req.contents).map((l) => Buffer.byteLength(buildApnsPayload(req, l), 'utf8'));
          expect(largestPayloadBytes(req)).to.equal(Math.max(...each));
        },
      ),
      { numRuns: 400 },
    );
  });
});
