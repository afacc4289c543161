// How Live Activities are named in paths and bodies: the app's activity id and the ActivityKit
// attributes type. One owner for the token calls and the start/update calls.

/** An activity id is the app's own string (OneSignal suggests a UUID): printable, at most this many characters. */
export const ACTIVITY_ID_MAX_CHARS = 128;
export const ACTIVITY_ID = new RegExp(`^[\\x21-\\x7e]{1,${ACTIVITY_ID_MAX_CHARS}}$`);
/** An activity type is a Swift type name (the ActivityAttributes struct), at most this many characters. */
export const ACTIVITY_TYPE_MAX_CHARS = 128;
export const ACTIVITY_TYPE = new RegExp(`^[A-Za-z_][A-Za-z0-9_.]{0,${ACTIVITY_TYPE_MAX_CHARS - 1}}$`);

export const ACTIVITY_ID_RULE = `activity_id must be 1 to ${ACTIVITY_ID_MAX_CHARS} printable characters.`;
export const ACTIVITY_TYPE_RULE = `activity_type must be the name of the ActivityAttributes type (letters, digits, _ and ., at most ${ACTIVITY_TYPE_MAX_CHARS}).`;
