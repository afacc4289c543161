// The limits of the user and alias calls (issue 27), stated once: the body schemas
// (user-schema.ts, and through them the OpenAPI document), the store's checks and their sentences
// read them here. Where OneSignal states a limit, the comment says so; the others bound the work
// of one request and the size of one user's row.
import { LIMITS } from '../validation/limits.js';
import { ALIAS_LABEL_MAX } from '../formats/alias-label.js';
import { TAGS_MAX } from '../formats/tags.js';
import { TIME_ZONE_NAME_MAX_CHARS } from '../formats/time-zone-name.js';

export const USER_LIMITS = {
  /** Subscriptions (installs) of one user (OneSignal: "up to 20 subscriptions per user"). */
  subscriptions: 20,
  /** Aliases of one user besides its OneSignal id, external_id included. */
  aliases: 20,
  /** An alias label: letters, digits, `_`, `-` and `.`, up to this many characters. */
  label: ALIAS_LABEL_MAX,
  /** An alias id (external_id and custom labels): as long as an external id of the send calls. */
  alias_id: LIMITS.external_id,
  /** Tags of one user (the app-facing install calls allow 200 in one body). */
  tags: TAGS_MAX,
  /** Tag keys and values: as a send's tag condition (core/validation/limits.ts). */
  tag: LIMITS.tag,
  /** timezone_id: an IANA name (the longest in tzdata is 32 characters). */
  timezone_id: TIME_ZONE_NAME_MAX_CHARS,
} as const;

/** The label of the OneSignal id: read-only, never created or deleted as an alias. */
export { ONESIGNAL_ID } from '../formats/alias-label.js';
/** The external id's label: defined with the install columns that carry its copy. */
export { EXTERNAL_ID } from '../subscriptions/user-copies.js';
