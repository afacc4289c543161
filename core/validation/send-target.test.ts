import { expect } from 'chai';
import { NO_TARGET } from './send-target.js';
import { problems, validate } from './helpers.test-support.js';

const UUID_A = '6f1d2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b';
const UUID_B = '7a2e3b4c-5d6e-4f70-9a8b-1c2d3e4f5a6b';
/** A body naming exactly the given target fields (the default segment removed). */
const only = (target: Record<string, unknown>) => ({ included_segments: undefined, ...target });

describe('target rule', () => {
  const accepted: Array<[string, Record<string, unknown>, unknown]> = [
    ['a built-in segment', { included_segments: ['Active Users'] }, { kind: 'segment', segment: 'Active Users' }],
    ['Inactive Users', { included_segments: ['Inactive Users'] }, { kind: 'segment', segment: 'Inactive Users' }],
    ['alias All', { included_segments: ['All'] }, { kind: 'segment', segment: 'Subscribed Users' }],
    ['alias All Subscribers', { included_segments: ['All Subscribers'] }, { kind: 'segment', segment: 'Subscribed Users' }],
    ["an app's own segment", { included_segments: ['Beta Testers'] }, { kind: 'segment', segment: 'Beta Testers' }],
    ['several segments (their union)', { included_segments: ['VIP', 'Active Users'] }, { kind: 'segment', segment: 'VIP', orSegments: ['Active Users'] }],
    ['several names of one segment (aliases read, duplicates dropped)', { included_segments: ['All', 'Subscribed Users', 'All Subscribers'] }, { kind: 'segment', segment: 'Subscribed Users' }],
    ['50 segment names', { included_segments: Array.from({ length: 50 }, (_, i) => ['VIP', 'Beta Testers', 'All'][i % 3]) }, { kind: 'segment', segment: 'VIP', orSegments: ['Beta Testers', 'Subscribed Users'] }],
    ['tag with a value', only({ tag: { key: 'level', relation: '>', value: '10' } }), { kind: 'tag', tag: { key: 'level', relation: '>', value: '10' } }],
    ['tag with field "tag" and a numeric value', only({ tag: { field: 'tag', key: 'level', relation: '=', value: 10 } }), { kind: 'tag', tag: { key: 'level', relation: '=', value: '10' } }],
    ['tag exists without value', only({ tag: { key: 'vip', relation: 'exists' } }), { kind: 'tag', tag: { key: 'vip', relation: 'exists' } }],
    ['tag not_exists drops a value', only({ tag: { key: 'vip', relation: 'not_exists', value: 'x' } }), { kind: 'tag', tag: { key: 'vip', relation: 'not_exists' } }],
    ['filters with one tag condition (client alias of tag)', only({ filters: [{ field: 'tag', key: 'level', relation: '<', value: '3' }] }), { kind: 'tag', tag: { key: 'level', relation: '<', value: '3' } }],
    ['subscription ids, deduplicated in order, lowercased', only({ include_subscription_ids: [UUID_B, UUID_A.toUpperCase(), UUID_B, UUID_A] }), { kind: 'subscription_ids', ids: [UUID_B, UUID_A] }],
    ['external ids, deduplicated in order', only({ include_external_ids: ['u-2', 'u-1', 'u-2'] }), { kind: 'external_ids', ids: ['u-2', 'u-1'] }],
    ['include_aliases.external_id (client alias)', only({ include_aliases: { external_id: ['u-1', 'u-1'] } }), { kind: 'external_ids', ids: ['u-1'] }],
    ['an empty list (empty audience)', only({ include_subscription_ids: [] }), { kind: 'subscription_ids', ids: [] }],
    ['500 ids', only({ include_external_ids: Array.from({ length: 500 }, (_, i) => `u${i}`) }), undefined],
    ['an external id of 128 characters (code points)', only({ include_external_ids: ['😀'.repeat(128)] }), undefined],
    ['an excluded_segments left empty', { excluded_segments: [] }, undefined],
    ['filters: AND between neighbours, OR between groups, every field', only({ filters: [
      { field: 'tag', key: 'level', relation: '>', value: 10 }, { operator: 'AND' }, { field: 'language', relation: '!=', value: 'fr' },
      { operator: 'OR' }, { field: 'last_session', relation: '<', hours_ago: '24' }, { field: 'first_session', relation: '>', hours_ago: 1.5 },
    ] }), { kind: 'filters', groups: [
      [{ field: 'tag', key: 'level', relation: '>', value: '10' }, { field: 'language', relation: '!=', value: 'fr' }],
      [{ field: 'last_session', relation: '<', hoursAgo: 24 }, { field: 'first_session', relation: '>', hoursAgo: 1.5 }],
    ] }],
    ['excluded_segments narrowing a segment (aliases read, duplicates dropped)', { excluded_segments: ['Inactive Users', 'Beta Testers', 'Inactive Users'] }, { kind: 'segment', segment: 'Subscribed Users', excluding: ['Inactive Users', 'Beta Testers'] }],
    ['excluded_segments narrowing a list', only({ include_external_ids: ['u-1'], excluded_segments: ['All'] }), { kind: 'external_ids', ids: ['u-1'], excluding: ['Subscribed Users'] }],
  ];
  for (const [name, changes, target] of accepted) {
    it(`accepts ${name}`, () => {
      const req = validate(changes);
      if (target !== undefined) expect(req.target).to.deep.equal(target);
    });
  }

  const ids501 = Array.from({ length: 501 }, (_, i) => `u${i}`);
  const refused: Array<[string, Record<string, unknown>, string]> = [
    ['no target', only({}), NO_TARGET],
    ['two targets', { tag: { key: 'a', relation: 'exists' } }, 'Name one audience only; this request names included_segments and tag.'],
    ['tag and filters (two spellings, two targets)', only({ tag: { key: 'a', relation: 'exists' }, filters: [{ field: 'tag', key: 'a', relation: 'exists' }] }), 'Name one audience only; this request names tag and filters.'],
    ['external ids and include_aliases', only({ include_external_ids: ['a'], include_aliases: { external_id: ['b'] } }), 'Name one audience only; this request names include_external_ids and include_aliases.'],
    ['an empty list beside a segment', { include_subscription_ids: [] }, 'Name one audience only; this request names included_segments and include_subscription_ids.'],
    ['no segment name', { included_segments: [] }, 'included_segments holds 1 to 50 segment names; this request names 0.'],
    ['51 segment names', { included_segments: Array(51).fill('VIP') }, 'included_segments holds 1 to 50 segment names; this request names 51.'],
    ['an unknown second segment', { included_segments: ['VIP', 'Everyone'] }, 'Unknown segment "Everyone". Use Subscribed Users, Active Users, Inactive Users or a segment defined for this app.'],
    ['a second segment name too long', { included_segments: ['VIP', 's'.repeat(129)] }, 'included_segments[1] is longer than 128 characters.'],
    ['a segment name that is no text', { included_segments: ['VIP', 7] }, 'included_segments[1] must be a segment name.'],
    ['an unknown segment', { included_segments: ['Everyone'] }, 'Unknown segment "Everyone". Use Subscribed Users, Active Users, Inactive Users or a segment defined for this app.'],
    ['a segment name in the wrong case', { included_segments: ['subscribed users'] }, 'Unknown segment "subscribed users". Use Subscribed Users, Active Users, Inactive Users or a segment defined for this app.'],
    ['tag without value', only({ tag: { key: 'level', relation: '=' } }), 'tag.value is required with relation "=".'],
    ['tag with an unknown relation', only({ tag: { key: 'level', relation: '>=', value: '1' } }), 'tag.relation must be one of =, !=, >, <, exists, not_exists.'],
    ['tag without key', only({ tag: { relation: 'exists' } }), 'tag.key must be the name of a tag.'],
    ['tag with an object value', only({ tag: { key: 'k', relation: '=', value: { a: 1 } } }), 'tag.value must be text or a number.'],
    ['tag with another field', only({ tag: { field: 'country', key: 'k', relation: 'exists' } }), 'tag.field must be "tag" here.'],
    ['filters ending with OR', only({ filters: [{ field: 'tag', key: 'a', relation: 'exists' }, { operator: 'OR' }] }), 'filters: "OR" must stand between two conditions.'],
    ['filters starting with OR', only({ filters: [{ operator: 'OR' }, { field: 'tag', key: 'a', relation: 'exists' }] }), 'filters[0]: "OR" must stand between two conditions.'],
    ['filters with no condition', only({ filters: [] }), 'filters holds 1 to 200 entries.'],
    ['filters of 201 entries', only({ filters: Array(201).fill({ field: 'tag', key: 'a', relation: 'exists' }) }), 'filters holds 1 to 200 entries.'],
    ['a field no install records', only({ filters: [{ field: 'country', relation: '=', value: 'US' }, { field: 'tag', key: 'a', relation: 'exists' }] }), 'filters[0].field must be one of tag, language, last_session, first_session, session_count, session_time, amount_spent; Herald records no other field of an install.'],
    ['a language filter with >', only({ filters: [{ field: 'language', relation: '>', value: 'en' }, { operator: 'OR' }, { field: 'tag', key: 'a', relation: 'exists' }] }), 'filters[0]: a language filter is {"field": "language", "relation": "=" or "!=", "value": a language code such as "en"}.'],
    ['a last_session filter without hours_ago', only({ filters: [{ field: 'last_session', relation: '>' }] }), 'filters[0]: a last_session filter is {"field": "last_session", "relation": ">" or "<", "hours_ago": a number of hours such as "24"}.'],
    ['an operator entry with more members', only({ filters: [{ field: 'tag', key: 'a', relation: 'exists' }, { operator: 'OR', key: 'x' }, { field: 'tag', key: 'b', relation: 'exists' }] }), 'filters[1] is an operator entry: {"operator": "OR"} (or "AND"), nothing else.'],
    ['501 external ids', only({ include_external_ids: ids501 }), 'include_external_ids holds at most 500 ids; this request has 501.'],
    ['501 entries even when duplicated', only({ include_external_ids: Array(501).fill('same') }), 'include_external_ids holds at most 500 ids; this request has 501.'],
    ['501 subscription ids', only({ include_subscription_ids: Array(501).fill(UUID_A) }), 'include_subscription_ids holds at most 500 ids; this request has 501.'],
    ['501 aliased external ids', only({ include_aliases: { external_id: ids501 } }), 'include_aliases.external_id holds at most 500 ids; this request has 501.'],
    ['a subscription id that is no UUID', only({ include_subscription_ids: [UUID_A, 'abc', 'def'] }), 'include_subscription_ids[1] is not a Subscription ID (a UUID) (and 1 more).'],
    ['an empty external id', only({ include_external_ids: [''] }), 'include_external_ids[0] is not an External ID of 1 to 128 characters.'],
    ['an external id of 129 characters', only({ include_external_ids: ['x'.repeat(129)] }), 'include_external_ids[0] is not an External ID of 1 to 128 characters.'],
    ['a OneSignal id that is no UUID', only({ include_aliases: { onesignal_id: ['x'] } }), 'include_aliases.onesignal_id[0] is not a OneSignal ID (a UUID).'],
    ['an empty include_aliases', only({ include_aliases: {} }), 'include_aliases names one alias label per send, such as {"external_id": [...]}; this request names 0.'],
    ['two alias labels', only({ include_aliases: { external_id: ['a'], crm: ['b'] } }), 'include_aliases names one alias label per send, such as {"external_id": [...]}; this request names 2.'],
    ['501 ids of a custom label', only({ include_aliases: { crm: ids501 } }), 'include_aliases.crm holds at most 500 ids; this request has 501.'],
    ['an unknown excluded segment', { excluded_segments: ['Everyone'] }, 'excluded_segments: unknown segment "Everyone". Use Subscribed Users, Active Users, Inactive Users or a segment defined for this app.'],
    ['11 excluded segments', { excluded_segments: Array(11).fill('All') }, 'excluded_segments is a list of at most 10 segment names.'],
  ];
  for (const [name, changes, message] of refused) {
    it(`refuses ${name}`, () => {
      expect(problems(() => validate(changes))).to.deep.equal([message]);
    });
  }

  it('counts a badly shaped target as named (one shape message, no "no target")', () => {
    expect(problems(() => validate(only({ tag: 'level' })))).to.deep.equal([
      'tag must be an object such as {"key": "level", "relation": ">", "value": "10"}.',
    ]);
  });

  it('explains an unsupported target field instead of only "no target"', () => {
    expect(problems(() => validate(only({ include_ios_tokens: [UUID_A] })))).to.deep.equal([
      'include_ios_tokens is not supported. Name the audience with included_segments, tag, include_subscription_ids or include_external_ids.',
      NO_TARGET,
    ]);
  });
});
