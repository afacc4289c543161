// An alias label (issue 27): what the user calls' paths and bodies and a send's include_aliases
// accept. Here, in the leaf folder, so the send's rules (core/validation) and the user calls
// (core/users) read one definition without importing each other.

/** The longest label: letters, digits, `_`, `-` and `.`. */
export const ALIAS_LABEL_MAX = 64;

export const ALIAS_LABEL_PATTERN = `^[A-Za-z0-9_.-]{1,${ALIAS_LABEL_MAX}}$`;

/** The label of the OneSignal id: the user's own id, never an alias row. */
export const ONESIGNAL_ID = 'onesignal_id';

/** The rule in words: every sentence that refuses a label says it this way. */
export const ALIAS_LABEL_RULE = `letters, digits, _ - . up to ${ALIAS_LABEL_MAX} characters`;

const ALIAS_LABEL = new RegExp(ALIAS_LABEL_PATTERN);

/** Whether an alias may have this label (onesignal_id passes too: a caller that refuses it says so). */
export const isAliasLabel = (label: string) => ALIAS_LABEL.test(label);
