// `herald import` takes "the fields of the SDK's register call" (cli/help.ts), so a line is
// accepted exactly when the register call would accept its fields: one rule, the install schema
// (core/validation/subscription-schema.ts), at each field's edges. Before, the import had its own
// checks: an empty external id, 129 tags' worth of text, an object as a tag value or a time zone
// no runtime knows went in, and a 128-character external id of emoji was refused.
import { expect } from 'chai';
import { Ajv } from 'ajv';
import { toCopyRow } from './import-installs.js';
import { checkInstallTimeZone, SUBSCRIPTION_FIELDS } from '../validation/subscription-schema.js';
import { TOKEN_BY_TYPE_SCHEMA } from '../formats/install-type.js';

const TOKEN = 'ab'.repeat(32);
const checkRegister = new Ajv({ allowUnionTypes: true }).compile({ type: 'object', properties: SUBSCRIPTION_FIELDS, required: ['token'], ...TOKEN_BY_TYPE_SCHEMA });
/** What the register call accepts: its schema, then its time zone rule. */
const registerAccepts = (fields: Record<string, unknown>) => checkRegister(fields) && checkInstallTimeZone(fields.timezone) === undefined;
const importAccepts = (fields: Record<string, unknown>) => 'row' in toCopyRow(JSON.stringify(fields));

const tags = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, 'v']));

const ACCEPTED: Array<[string, Record<string, unknown>]> = [
  ['an external id of 1 character', { external_id: 'u' }],
  ['an external id of 128 characters', { external_id: 'u'.repeat(128) }],
  ['an external id of 128 emoji (128 characters, 256 UTF-16 units)', { external_id: '🙂'.repeat(128) }],
  ['a null external id', { external_id: null }],
  ['a language with a region', { language: 'pt-BR' }],
  ['a known time zone', { timezone: 'Europe/Paris' }],
  ['200 tags', { tags: tags(200) }],
  ['a tag key and value of 128 characters', { tags: { ['k'.repeat(128)]: 'v'.repeat(128) } }],
  ['tag values as a number and a boolean', { tags: { level: 3, vip: true } }],
  ['subscribed false', { subscribed: false }],
];
const REFUSED: Array<[string, Record<string, unknown>, string]> = [
  ['an empty external id', { external_id: '' }, 'external_id'],
  ['an external id of 129 characters', { external_id: 'u'.repeat(129) }, 'external_id'],
  ['a language that is no code', { language: 'english' }, 'language'],
  ['a time zone no runtime knows', { timezone: 'Mars/Olympus_Mons' }, 'timezone'],
  ['a time zone of 65 characters', { timezone: 'x'.repeat(65) }, 'timezone'],
  ['201 tags', { tags: tags(201) }, 'tags'],
  ['a tag key of 129 characters', { tags: { ['k'.repeat(129)]: 'v' } }, 'tags'],
  ['a tag value of 129 characters', { tags: { k: 'v'.repeat(129) } }, 'tags.k'],
  ['an object as a tag value', { tags: { k: { nested: 1 } } }, 'tags.k'],
  ['tags as an array', { tags: ['a'] }, 'tags'],
  ['subscribed as text', { subscribed: 'yes' }, 'subscribed'],
];

describe('herald import: a line is accepted when the register call accepts its fields', () => {
  for (const [what, fields] of ACCEPTED) {
    it(`accepts ${what}, as the register call does`, () => {
      expect(registerAccepts({ token: TOKEN, ...fields }), 'the register call').to.equal(true);
      expect(toCopyRow(JSON.stringify({ token: TOKEN, ...fields }))).to.have.property('row');
    });
  }
  for (const [what, fields, field] of REFUSED) {
    it(`refuses ${what}, as the register call does, naming ${field}`, () => {
      expect(registerAccepts({ token: TOKEN, ...fields }), 'the register call').to.equal(false);
      expect(importAccepts({ token: TOKEN, ...fields }), 'the import').to.equal(false);
      const { problem } = toCopyRow(JSON.stringify({ token: TOKEN, ...fields })) as { problem: string };
      expect(problem.startsWith(`${field} `), problem).to.equal(true);
    });
  }

  it('stores tag values as text and leaves out a null one (no tag to remove on a new row)', () => {
    const { row } = toCopyRow(JSON.stringify({ id: '5b0b6f2e-0f55-4c3c-9d0b-1f0a0e6f6c11', token: TOKEN, tags: { level: 3, vip: true, gone: null } })) as { row: string };
    expect(row.split('\t')[5]).to.equal('{"level":"3","vip":"true"}');
  });
});

describe('herald import: the platform field (issue 39)', () => {
  const FCM = 'fA1:b_c-d.' + 'Zz9'.repeat(10);
  it('ios by default (the APNs rule, stored lowercase); android takes an FCM token kept as given', () => {
    const columns = (line: Record<string, unknown>) => (toCopyRow(JSON.stringify(line)) as { row: string }).row.trimEnd().split('\t');
    const [ios, android] = [columns({ token: 'AB'.repeat(32) }), columns({ platform: 'android', token: FCM })];
    expect([ios[1], ios.at(-1)]).to.deep.equal(['ab'.repeat(32), 'ios']);
    expect([android[1], android.at(-1)]).to.deep.equal([FCM, 'android']);
  });
  it('the longest FCM token (4,096) is accepted; 4,097, a bad character, an APNs-only line or another platform are refused with the rule', () => {
    expect(toCopyRow(JSON.stringify({ platform: 'android', token: 'a'.repeat(4096) }))).to.have.property('row');
    const rule = 'token must be the FCM registration token, 1 to 4096 characters of A-Z, a-z, 0-9, _, :, . and -';
    expect(toCopyRow(JSON.stringify({ platform: 'android', token: 'a'.repeat(4097) }))).to.deep.equal({ problem: rule });
    expect(toCopyRow(JSON.stringify({ platform: 'android', token: 'ab/cd' }))).to.deep.equal({ problem: rule });
    expect(toCopyRow(JSON.stringify({ token: FCM }))).to.deep.equal({ problem: 'token must be the APNs device token in hex, 8 to 200 digits (0-9, a-f)' });
    expect(toCopyRow(JSON.stringify({ platform: 'web', token: FCM }))).to.deep.equal({ problem: 'platform must be ios or android' });
  });
});
