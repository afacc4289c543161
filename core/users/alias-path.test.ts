// The alias a user call's path names: one label rule (core/formats/alias-label.ts) for the named
// alias and the label to delete, each refused in its own sentence naming its path part.
import { expect } from 'chai';
import { ValidationError } from '../errors.js';
import { labelToDelete, pathAlias } from './alias-path.js';

const refusal = (work: () => unknown): { field?: string; message: string } | undefined => {
  try {
    work();
    return undefined;
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return { field: error.issues[0].field, message: error.messages[0] };
  }
};

describe('core/users alias-path: the path names an alias', () => {
  const ACCEPTED: Array<[string, string]> = [['external_id', 'u1'], ['onesignal_id', 'x'], ['crm.v2-id_1', 'c'], ['l'.repeat(64), 'i'.repeat(128)]];
  for (const [label, id] of ACCEPTED) {
    it(`accepts ${label.slice(0, 12)} / ${id.length} characters`, () => expect(refusal(() => pathAlias(label, id))).to.equal(undefined));
  }
  const REFUSED: Array<[string, string, string, string]> = [
    ['a label with a space', 'crm id', 'x', 'alias_label'],
    ['a label of 65 characters', 'l'.repeat(65), 'x', 'alias_label'],
    ['an id of 129 characters', 'external_id', 'i'.repeat(129), 'alias_id'],
    ['an id with a NUL', 'external_id', 'a\u0000b', 'alias_id'],
  ];
  for (const [what, label, id, field] of REFUSED) {
    it(`refuses ${what}, naming ${field}`, () => expect(refusal(() => pathAlias(label, id))?.field).to.equal(field));
  }
  it('says the label rule in words for both path parts', () => {
    expect(refusal(() => pathAlias('a b', 'x'))?.message).to.equal('alias_label must be onesignal_id or a label of letters, digits, _ - . up to 64 characters.');
    expect(refusal(() => labelToDelete('a b'))?.message).to.equal('alias_label_to_delete must be a label of letters, digits, _ - . up to 64 characters.');
    expect(labelToDelete('crm')).to.equal('crm');
  });
});
