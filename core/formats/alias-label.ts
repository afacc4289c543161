// An alias label (issue 27): what the user calls' paths and bodies and a send's include_aliases
// accept. Here, in the leaf folder, so the send's rules (core/validation) and the user calls
// (core/users) read one definition without importing each other.

/** The longest label: letters, digits, `_`, `-` and `.`. */
export const ALIAS_LABEL_MAX = 64;

export const ALIAS_LABEL_PATTERN = `^[A-Za-z0-9_.-]{1,${ALIAS_LABEL_MAX}}$`;

/** The label of the OneSignal id: the user's own id, never an alias row. */
export const ONESIGNAL_ID = 'onesignal_id';
