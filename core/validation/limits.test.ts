// The limits of the send body (limits.ts), each at its edge through validation: the longest (or
// largest) accepted, one more refused with an issue naming its field. And attacks on the send body:
// each input is refused early with a 422 naming the field, before any work that grows with its
// size (docs/security.md "Bounded work per request").
import { expect } from 'chai';
import { ValidationError, type FieldIssue } from '../errors.js';
import { APP, body, NOW, problems, validate } from './helpers.test-support.js';
import { LIMITS } from './limits.js';
import { openApiSendRequest } from './schema-views.js';
import { readData } from './send-content.js';
import { validateSendRequest } from './validate-send.js';

/** The cap on languages per map (docs/decisions.md). */
const MAX_LANGUAGES = LIMITS.languages;

/** `n` distinct made-up language codes (aa-AAAA, aa-AAAB, …), all of the accepted form. */
function languageCodes(n: number): string[] {
  const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  return Array.from({ length: n }, (_, i) => {
    let tag = '';
    for (let k = i, d = 0; d < 4; d++, k = Math.floor(k / 26)) tag = letters[k % 26] + tag;
    return `aa-${tag}`;
  });
}

describe('bounded send bodies', () => {
  it('refuses a send_after padded with 80,000 spaces by its length, before parsing', () => {
    const padded = '2026-11-24T14:00' + ' '.repeat(80_000) + '!';
    expect(problems(() => validate({ send_after: padded }))).to.deep.equal([
      'send_after is longer than 64 characters.',
    ]);
  });

  it('still reads a send_after of 64 characters', () => {
    const text = '2026-03-02T12:00:00Z'.padEnd(64, ' ');
    expect(validate({ send_after: text }).sendAfter?.toISOString()).to.equal('2026-03-02T12:00:00.000Z');
  });

  it('refuses 16,000 made-up languages in contents and headings with 250 data values, naming both maps', () => {
    const codes = languageCodes(16_000);
    const contents = Object.fromEntries(codes.map((c) => [c, 'x']));
    const headings = Object.fromEntries(codes.map((c) => [c, 'y']));
    const data = Object.fromEntries(Array.from({ length: 250 }, (_, i) => [`k${i}`, 'v'.repeat(2000)]));
    expect(problems(() => validate({ contents, headings, data }))).to.deep.equal([
      `contents has 16000 languages; at most ${MAX_LANGUAGES} are accepted.`,
      `headings has 16000 languages; at most ${MAX_LANGUAGES} are accepted.`,
    ]);
  });

  it(`accepts ${MAX_LANGUAGES} languages`, () => {
    const contents = Object.fromEntries(languageCodes(MAX_LANGUAGES).map((c) => [c, 'x']));
    expect(Object.keys(validate({ contents }).contents)).to.have.length(MAX_LANGUAGES);
  });

  it('quotes a bad language code cut to 40 characters, not whole', () => {
    const [message] = problems(() => validate({ contents: { ['x'.repeat(100_000)]: 'Hi' } }));
    expect(message).to.equal(
      `contents has "${'x'.repeat(40)}…", which is not a language code such as en, pt-BR or zh-Hans.`,
    );
  });

  it('refuses data with more than 1,000 entries (more cannot fit in 4 KB)', () => {
    const data = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`k${i}`, '']));
    expect(problems(() => validate({ data }))).to.deep.equal([
      'data holds at most 1000 entries; this request has 1001.',
    ]);
  });

  const longCases: Array<[string, Record<string, unknown>, string]> = [
    ['a tag key', { included_segments: undefined, tag: { key: 'k'.repeat(129), relation: 'exists' } }, 'tag.key is longer than 128 characters.'],
    ['a tag value', { included_segments: undefined, tag: { key: 'k', relation: '=', value: 'v'.repeat(129) } }, 'tag.value is longer than 128 characters.'],
    ['a filters value', { included_segments: undefined, filters: [{ field: 'tag', key: 'k', relation: '=', value: 'v'.repeat(129) }] }, 'filters[0].value is longer than 128 characters.'],
    ['a segment name', { included_segments: ['s'.repeat(100_000)] }, 'included_segments[0] is longer than 128 characters.'],
  ];
  for (const [name, changes, message] of longCases) {
    it(`refuses ${name} over 128 characters`, () => {
      expect(problems(() => validate(changes))).to.deep.equal([message]);
    });
  }

  it('quotes unknown include_aliases labels cut short', () => {
    const [message] = problems(() => validate({ included_segments: undefined, include_aliases: { ['l'.repeat(5000)]: ['a'] } }));
    expect(message.length).to.be.below(200);
  });
});

/** The issues of a body with `changes` (none when it is accepted). */
function issuesOf(changes: Record<string, unknown>): FieldIssue[] {
  try {
    validateSendRequest({ body: body(changes), app: APP, now: NOW });
    return [];
  } catch (error) {
    expect(error).to.be.instanceOf(ValidationError);
    return (error as ValidationError).issues;
  }
}

const about = (field: string) => (issue: FieldIssue) =>
  issue.field === field || issue.field.startsWith(`${field}.`) || issue.field.startsWith(`${field}[`);
const link = (n: number) => `https://example.com/${'p'.repeat(n - 20)}`;
const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const noSegment = { included_segments: undefined };

/**
 * Each limit: the field its issue names, the body with the value at n, and which way it bounds.
 * `valueRule`: the field accepts only one value (the app's bundle id, "timezone"), so the limit
 * bounds what is read and only limit + 1 is checked here.
 */
interface Edge {
  field: string;
  at: (n: number) => Record<string, unknown>;
  bound?: 'max' | 'min';
  valueRule?: true;
}
const EDGES: Record<Exclude<keyof typeof LIMITS, 'data_key' | 'data_value'>, Edge> = {
  contents: { field: 'contents.en', at: (n) => ({ contents: { en: 'c'.repeat(n) } }) },
  headings: { field: 'headings.en', at: (n) => ({ headings: { en: 'h'.repeat(n) } }) },
  subtitle: { field: 'subtitle.en', at: (n) => ({ subtitle: { en: 's'.repeat(n) } }) },
  languages: { field: 'contents', at: (n) => ({ contents: Object.fromEntries(languageCodes(n).map((c) => [c, 'x'])) }) },
  url: { field: 'url', at: (n) => ({ url: link(n) }) },
  image_url: { field: 'big_picture', at: (n) => ({ big_picture: link(n) }) },
  button: { field: 'buttons[0].text', at: (n) => ({ buttons: [{ id: 'b', text: 't'.repeat(n) }] }) },
  data_entries: { field: 'data', at: (n) => ({ data: Object.fromEntries(range(n).map((i) => [`k${i}`, ''])) }) },
  tag: { field: 'tag.key', at: (n) => ({ ...noSegment, tag: { key: 'k'.repeat(n), relation: 'exists' } }) },
  external_id: { field: 'include_external_ids[0]', at: (n) => ({ ...noSegment, include_external_ids: ['e'.repeat(n)] }) },
  ids_per_list: { field: 'include_external_ids', at: (n) => ({ ...noSegment, include_external_ids: range(n).map((i) => `u${i}`) }) },
  included_segments: { field: 'included_segments', at: (n) => ({ included_segments: range(n).map((i) => (i % 2 ? 'VIP' : 'All')) }) },
  excluded_segments: { field: 'excluded_segments', at: (n) => ({ excluded_segments: range(n).map(() => 'VIP') }) },
  filter_entries: { field: 'filters', at: (n) => ({ ...noSegment, filters: range(n).map(() => ({ field: 'tag', key: 'k', relation: 'exists' })) }) },
  send_after: { field: 'send_after', at: (n) => ({ send_after: '2026-03-02T12:00:00Z'.padEnd(n, ' ') }) },
  delayed_option: { field: 'delayed_option', at: (n) => ({ delayed_option: 'timezone'.padEnd(n, ' '), delivery_time_of_day: '9:00' }), valueRule: true },
  delivery_time_of_day: { field: 'delivery_time_of_day', at: (n) => ({ delayed_option: 'timezone', delivery_time_of_day: '9:00AM'.padEnd(n, ' ') }) },
  bundle_id: { field: 'bundle_id', at: (n) => ({ bundle_id: APP.bundleId.padEnd(n, 'x') }), valueRule: true },
  name: { field: 'name', at: (n) => ({ name: 'n'.repeat(n) }) },
  custom_data_bytes: { field: 'custom_data', at: (n) => ({ custom_data: { k: 'x'.repeat(n - '{"k":""}'.length) } }) },
  collapse_id_bytes: { field: 'collapse_id', at: (n) => ({ collapse_id: 'c'.repeat(n) }) },
  ios_sound: { field: 'ios_sound', at: (n) => ({ ios_sound: 's'.repeat(n) }) },
  ios_category: { field: 'ios_category', at: (n) => ({ ios_category: 'c'.repeat(n) }) },
  thread_id: { field: 'thread_id', at: (n) => ({ thread_id: 't'.repeat(n) }) },
  summary_arg: { field: 'summary_arg', at: (n) => ({ summary_arg: 'a'.repeat(n) }) },
  target_content_identifier: { field: 'target_content_identifier', at: (n) => ({ target_content_identifier: 'i'.repeat(n) }) },
  android_text: { field: 'android_channel_id', at: (n) => ({ android_channel_id: 'c'.repeat(n) }) },
  alert_text: { field: 'apns_alert.loc-key', at: (n) => ({ apns_alert: { 'loc-key': 'k'.repeat(n) } }) },
  alert_args: { field: 'apns_alert.loc-args', at: (n) => ({ apns_alert: { 'loc-args': range(n).map(() => 'a') } }) },
  ttl_seconds: { field: 'ttl', at: (n) => ({ ttl: n }) },
  throttle_min: { field: 'throttle_rate_per_minute', at: (n) => ({ throttle_rate_per_minute: n }), bound: 'min' },
  throttle_max: { field: 'throttle_rate_per_minute', at: (n) => ({ throttle_rate_per_minute: n }) },
  badge_min: { field: 'ios_badgeCount', at: (n) => ({ ios_badgeType: 'Increase', ios_badgeCount: n }), bound: 'min' },
  badge_max: { field: 'ios_badgeCount', at: (n) => ({ ios_badgeType: 'Increase', ios_badgeCount: n }) },
};

describe('the limits in the OpenAPI document (and the Send CRD, the same view of the schema)', () => {
  const fields = openApiSendRequest('').properties as Record<string, Record<string, any>>;
  const stated: [string, unknown, number][] = [
    ['contents', fields.contents.additionalProperties.maxLength, LIMITS.contents],
    ['headings', fields.headings.additionalProperties.maxLength, LIMITS.headings],
    ['subtitle', fields.subtitle.additionalProperties.maxLength, LIMITS.subtitle],
    ['url', fields.url.maxLength, LIMITS.url],
    ['app_url', fields.app_url.maxLength, LIMITS.url],
    ['big_picture', fields.big_picture.maxLength, LIMITS.image_url],
    ['ios_attachments', fields.ios_attachments.additionalProperties.maxLength, LIMITS.image_url],
    ['buttons[].text', fields.buttons.items.properties.text.maxLength, LIMITS.button],
    ['included_segments[]', fields.included_segments.items.maxLength, LIMITS.tag],
    ['include_external_ids', fields.include_external_ids.maxItems, LIMITS.ids_per_list],
    ['include_external_ids[]', fields.include_external_ids.items.maxLength, LIMITS.external_id],
    ['include_subscription_ids', fields.include_subscription_ids.maxItems, LIMITS.ids_per_list],
    ['excluded_segments', fields.excluded_segments.maxItems, LIMITS.excluded_segments],
    ['send_after', fields.send_after.maxLength, LIMITS.send_after],
    ['delivery_time_of_day', fields.delivery_time_of_day.maxLength, LIMITS.delivery_time_of_day],
    ['name', fields.name.maxLength, LIMITS.name],
    ['ttl', fields.ttl.maximum, LIMITS.ttl_seconds],
    ['throttle_rate_per_minute', fields.throttle_rate_per_minute.maximum, LIMITS.throttle_max],
    ['ios_sound', fields.ios_sound.maxLength, LIMITS.ios_sound],
    ['target_content_identifier', fields.target_content_identifier.maxLength, LIMITS.target_content_identifier],
    ['android_channel_id', fields.android_channel_id.maxLength, LIMITS.android_text],
    ['existing_android_channel_id', fields.existing_android_channel_id.maxLength, LIMITS.android_text],
    ['small_icon', fields.small_icon.maxLength, LIMITS.android_text],
    ['android_sound', fields.android_sound.maxLength, LIMITS.android_text],
    ['android_group', fields.android_group.maxLength, LIMITS.android_text],
  ];
  for (const [field, inDocument, limit] of stated) {
    it(`${field}: ${limit}`, () => expect(inDocument).to.equal(limit));
  }
});

describe('each limit at its edge, through validation', () => {
  it('has an edge case for every limit of the table', () => {
    expect(Object.keys(EDGES).concat('data_key', 'data_value').sort()).to.deep.equal(Object.keys(LIMITS).sort());
  });

  for (const [name, edge] of Object.entries(EDGES) as [keyof typeof EDGES, Edge][]) {
    const limit = LIMITS[name];
    const beyond = edge.bound === 'min' ? limit - 1 : limit + 1;
    it(`${name}: ${edge.valueRule ? '' : `${limit} accepted, `}${beyond} refused, naming ${edge.field}`, () => {
      if (!edge.valueRule) expect(issuesOf(edge.at(limit)).filter(about(edge.field)), `at ${limit}`).to.deep.equal([]);
      expect(issuesOf(edge.at(beyond)).filter(about(edge.field)), `at ${beyond}`).to.have.length(1);
    });
  }

  it(`ios_attachments (big_picture's other name): ${LIMITS.image_url} accepted, ${LIMITS.image_url + 1} refused`, () => {
    expect(issuesOf({ ios_attachments: { id: link(LIMITS.image_url) } })).to.deep.equal([]);
    expect(issuesOf({ ios_attachments: { id: link(LIMITS.image_url + 1) } })).to.deep.equal([
      { field: 'ios_attachments', message: `ios_attachments holds an address longer than ${LIMITS.image_url} characters.` },
    ]);
  });

  it(`data keys and values: cut to ${LIMITS.data_key} and ${LIMITS.data_value} characters, never refused`, () => {
    const read = (key: string, value: string) => readData({ data: { [key]: value } }, []);
    expect(read('k'.repeat(LIMITS.data_key), 'v'.repeat(LIMITS.data_value))).to.deep.equal({ ['k'.repeat(LIMITS.data_key)]: 'v'.repeat(LIMITS.data_value) });
    expect(read('k'.repeat(LIMITS.data_key + 1), 'v'.repeat(LIMITS.data_value + 1))).to.deep.equal({ ['k'.repeat(LIMITS.data_key)]: 'v'.repeat(LIMITS.data_value) });
  });
});
