// A device's tags (OneSignal's data tags), one rule for every call that takes them: keys and
// values of at most 128 characters (segment names too), at most 200 on one install or one user.
// The install calls, the user calls, a send's tag conditions and filters, segments and the
// dashboard read them here (core/validation/limits.ts, core/users/user-limits.ts).

/** A tag key or value, and a segment name, in characters. */
export const TAG_MAX_CHARS = 128;
/** Tags on one install or one user. */
export const TAGS_MAX = 200;

/** The relations of a tag condition (OneSignal's), in the order the sentences list them. */
export const TAG_RELATIONS = ['=', '!=', '>', '<', 'exists', 'not_exists'] as const;
export type TagRelation = (typeof TAG_RELATIONS)[number];

export const isTagRelation = (relation: unknown): relation is TagRelation => (TAG_RELATIONS as readonly unknown[]).includes(relation);
