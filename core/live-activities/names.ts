// How Live Activities are named in paths and bodies: the app's activity id and the ActivityKit
// attributes type. One owner for the token calls and the start/update calls.

/** An activity id is the app's own string (OneSignal suggests a UUID): printable, at most 128 characters. */
export const ACTIVITY_ID = /^[\x21-\x7e]{1,128}$/;
/** An activity type is a Swift type name (the ActivityAttributes struct). */
export const ACTIVITY_TYPE = /^[A-Za-z_][A-Za-z0-9_.]{0,127}$/;

export const ACTIVITY_ID_RULE = 'activity_id must be 1 to 128 printable characters.';
export const ACTIVITY_TYPE_RULE = 'activity_type must be the name of the ActivityAttributes type (letters, digits, _ and ., at most 128).';
