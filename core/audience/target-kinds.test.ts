// The table of target kinds held consistent: every stored kind is one row (and the database's
// constraint takes exactly those), every body field names one row, each row's words and body come
// back from its own summary, and a list's limit is the one the rules enforce.
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  IDS_PER_LIST, LIST_KINDS, TARGET_FIELDS, TARGET_KINDS, idKindOfLabel, isConditionTarget, isListTarget, listIdLabel, targetBody, targetDraw, targetField, targetKind,
  type ListKind, type TargetKind,
} from './target-kinds.js';
import type { SendTarget } from '../send-model/request.js';
import { LIMITS } from '../validation/limits.js';
import { problems, validate } from '../validation/helpers.test-support.js';

const MIGRATIONS = join(dirname(fileURLToPath(import.meta.url)), '..', 'store', 'migrations');
const KINDS = Object.keys(TARGET_KINDS) as TargetKind[];
const UUID = '6f1d2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b';

/** One target of each kind, as the rules make it. */
const EXAMPLES: { [K in TargetKind]: Extract<SendTarget, { kind: K }> } = {
  segment: { kind: 'segment', segment: 'VIP', orSegments: ['Beta Testers'] },
  tag: { kind: 'tag', tag: { key: 'plan', relation: '=', value: 'gold' } },
  filters: { kind: 'filters', groups: [[{ field: 'language', relation: '=', value: 'fr' }], [{ field: 'tag', key: 'vip', relation: 'exists' }]] },
  subscription_ids: { kind: 'subscription_ids', ids: [UUID] },
  external_ids: { kind: 'external_ids', ids: ['u-1', 'u-2'] },
  aliases: { kind: 'aliases', label: 'crm_id', ids: ['c-1'] },
  activity: { kind: 'activity', activityId: 'match-7' },
};

/** The kinds the latest migration that sets sends.target_kind's constraint allows. */
function storedKinds(): string[] {
  const sql = readdirSync(MIGRATIONS).filter((f) => f.endsWith('.sql')).sort().map((f) => readFileSync(join(MIGRATIONS, f), 'utf8'))
    .filter((text) => text.includes('sends_target_kind_check')).at(-1)!;
  const list = /target_kind IN \(([^)]*)\)/.exec(sql)![1];
  return list.split(',').map((k) => k.trim().replace(/^'|'$/g, ''));
}

describe('target kinds: the table', () => {
  it('has one row per stored target_kind, and the database takes exactly those', () => {
    for (const kind of KINDS) expect(TARGET_KINDS[kind].kind).to.equal(kind);
    expect([...storedKinds()].sort()).to.deep.equal([...KINDS].sort());
    for (const kind of storedKinds()) expect(targetKind(kind), kind).to.not.equal(undefined);
    expect(targetKind('toString')).to.equal(undefined); // not a row through the prototype
  });

  it('gives every body field exactly one row, the contract fields first in the rules order, then the other spellings', () => {
    expect(TARGET_FIELDS).to.deep.equal([
      'included_segments', 'tag', 'filters', 'include_subscription_ids', 'include_external_ids', 'include_aliases',
      'include_player_ids', 'include_external_user_ids',
    ]);
    expect(new Set(TARGET_FIELDS).size).to.equal(TARGET_FIELDS.length);
    expect(targetField('include_player_ids')?.row.kind).to.equal('subscription_ids');
    expect(targetField('include_external_user_ids')?.row.kind).to.equal('external_ids');
    expect(targetField('include_ios_tokens')).to.equal(undefined);
  });

  it('says each kind’s audience shape once: lists are uncapped and draw send, conditions are capped broadcasts', () => {
    expect(LIST_KINDS).to.deep.equal(['subscription_ids', 'external_ids', 'aliases']);
    for (const kind of KINDS) {
      const row = TARGET_KINDS[kind];
      const target = EXAMPLES[kind];
      expect(isListTarget(target), kind).to.equal(row.audience === 'list');
      expect(isConditionTarget(target), kind).to.equal(row.audience === 'condition');
      expect(row.bucket, kind).to.equal(row.audience === 'condition' ? 'broadcast' : 'send');
      expect(row.capped, kind).to.equal(row.audience !== 'list');
      if (row.audience === 'list') expect((row as { limit?: number }).limit, kind).to.equal(IDS_PER_LIST);
    }
  });

  it('writes each target back as a body the rules read into the same target (excluded segments kept)', () => {
    for (const kind of KINDS.filter((k) => k !== 'activity')) {
      const target = { ...EXAMPLES[kind], excluding: ['Inactive Users'] } as SendTarget;
      const read = validate({ included_segments: undefined, ...targetBody(target) }).target;
      expect(read, kind).to.deep.equal(target);
    }
  });

  it('describes each kind from its own summary', () => {
    const words = KINDS.map((kind) => {
      const row = TARGET_KINDS[kind] as { summary(t: SendTarget): object; describe(s: object): string };
      return row.describe(row.summary(EXAMPLES[kind]));
    });
    expect(words).to.deep.equal(['VIP or Beta Testers', 'tag plan = gold', 'filters (2 groups)', '1 subscription id', '2 external ids', '1 crm_id id', 'Live Activity  (update)']);
  });

  it('draws broadcast only for a condition field; the audience bucket only for one target', () => {
    expect(targetDraw({ include_player_ids: [UUID] })).to.deep.equal({ bucket: 'send' });
    expect(targetDraw({ tag: { key: 'a', relation: 'exists' } })).to.deep.equal({ bucket: 'broadcast', audience: 'tag:["a","exists",null]' });
    expect(targetDraw({ tag: { key: 'a', relation: 'exists' }, include_external_ids: ['u'] })).to.deep.equal({ bucket: 'broadcast', audience: 'tag:["a","exists",null]' });
    expect(targetDraw({ tag: { key: 'a', relation: 'exists' }, filters: [] })).to.deep.equal({ bucket: 'broadcast' });
  });
});

describe('target kinds: a list kind’s limit is the one the rules enforce', () => {
  const cases: [string, (n: number) => Record<string, unknown>][] = [
    ['include_subscription_ids', (n) => ({ include_subscription_ids: Array.from({ length: n }, () => UUID) })],
    ['include_player_ids', (n) => ({ include_player_ids: Array.from({ length: n }, () => UUID) })],
    ['include_external_ids', (n) => ({ include_external_ids: Array.from({ length: n }, (_, i) => `u${i}`) })],
    ['include_external_user_ids', (n) => ({ include_external_user_ids: Array.from({ length: n }, (_, i) => `u${i}`) })],
    ['include_aliases.crm_id', (n) => ({ include_aliases: { crm_id: Array.from({ length: n }, (_, i) => `c${i}`) } })],
  ];
  for (const [field, list] of cases) {
    it(`${field}: the row's limit accepted, one more refused naming the limit`, () => {
      const limit = targetField(field.split('.')[0])!.row.limit!;
      expect(limit).to.equal(LIMITS.ids_per_list);
      expect(() => validate({ included_segments: undefined, ...list(limit) })).to.not.throw();
      // The rules' schema refuses a longer include_subscription_ids / include_external_ids by its shape; the sentence names the field either way.
      expect(problems(() => validate({ included_segments: undefined, ...list(limit + 1) })).join(' ')).to.match(new RegExp(`${field.replace('.', '\\.')}.*${limit}|${field.split('.')[0]}`));
    });
  }

  it('included_segments: the segment row’s limit of names', () => {
    const limit = TARGET_KINDS.segment.limit;
    expect(limit).to.equal(LIMITS.included_segments);
    expect(problems(() => validate({ included_segments: Array.from({ length: limit + 1 }, () => 'VIP') })).join(' ')).to.match(/included_segments/);
  });
});

describe('target kinds: the ids of a list', () => {
  it('are under one alias label per row, and each label says what its ids match', () => {
    expect(LIST_KINDS.map((kind) => listIdLabel(EXAMPLES[kind] as Extract<SendTarget, { kind: ListKind }>))).to.deep.equal([null, 'external_id', 'crm_id']);
    expect([null, 'external_id', 'onesignal_id', 'crm_id'].map(idKindOfLabel)).to.deep.equal(['subscription', 'external', 'onesignal', 'alias']);
  });
});
