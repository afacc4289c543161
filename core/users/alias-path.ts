// The alias a user call's path names (issue 27; docs/api.md "Users"): one rule for the label
// (core/formats/alias-label.ts) and the id's bounds, each path part refused with its own sentence,
// the ones the contract tests pin. A path is no JSON body: its text is checked here too.
import { ValidationError } from '../errors.js';
import { ALIAS_LABEL_RULE, isAliasLabel } from '../formats/alias-label.js';
import { assertStorableText } from '../validation/untrusted-json.js';
import { codePointLength } from '../validation/text.js';
import { ONESIGNAL_ID, USER_LIMITS } from './user-limits.js';

/** A user named by one of its aliases (onesignal_id: its own id). */
export interface AliasRef {
  label: string;
  id: string;
}

/** Whether a path may name this label: an alias label or onesignal_id. */
const isPathLabel = (label: string) => label === ONESIGNAL_ID || isAliasLabel(label);

/** The path's label and id, bounded like the bodies' (422 naming the part). */
export function pathAlias(label: string, id: string): AliasRef {
  if (!isPathLabel(label)) {
    throw new ValidationError({ field: 'alias_label', message: `alias_label must be onesignal_id or a label of ${ALIAS_LABEL_RULE}.` });
  }
  if (codePointLength(id) > USER_LIMITS.alias_id) throw new ValidationError({ field: 'alias_id', message: `alias_id is longer than ${USER_LIMITS.alias_id} characters.` });
  // A NUL in a path reached SQL and answered 500.
  assertStorableText(id, 'alias_id');
  return { label, id };
}

/** A label the path names to delete: one an alias may have (422 otherwise, as the path's label). */
export function labelToDelete(label: string): string {
  if (!isPathLabel(label)) {
    throw new ValidationError({ field: 'alias_label_to_delete', message: `alias_label_to_delete must be a label of ${ALIAS_LABEL_RULE}.` });
  }
  return label;
}
