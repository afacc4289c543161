// The audience of a send (contract "Target rule"; DECISIONS "Audiences" and "Compatibility with
// the official OneSignal client"). The condition language of `tag` and `filters`: filter-conditions.ts.
import type { FieldIssue } from '../errors.js';
import type { SendTarget } from '../send-model/request.js';
import { readFilters, readTag } from './filter-conditions.js';
import { singleTagFilter } from '../audience/filter-schema.js';
import { TARGET_FIELDS, TARGET_KINDS, idKindOfLabel, targetField, type ListIdKind, type TargetKind } from '../audience/target-kinds.js';
import { LIMITS } from './limits.js';
import type { SendBody } from './send-schema.js';
import { codePointLength, quoted } from './text.js';
import { isUuid } from '../formats/uuid.js';
import { ALIAS_LABEL_MAX, ALIAS_LABEL_RULE, ONESIGNAL_ID, isAliasLabel } from '../formats/alias-label.js';
import { BUILT_IN_SEGMENT_LIST, isBuiltInSegment, segmentNamed } from '../formats/built-in-segments.js';

/**
 * Fields that name an audience, each read by its kind's reader below: the table of target kinds
 * (core/audience/target-kinds.ts) says which kind a field names, in which order the rules list
 * them, and the other spellings of a field (OneSignal v1's include_player_ids is
 * include_subscription_ids, include_external_user_ids include_external_ids, issue 38: not in the
 * send body's schema nor the Send CRD, documented in docs/api.md). `filters` is the client's tag
 * target (one tag condition is the same as `tag`) and `include_aliases.external_id` the client's
 * spelling of `include_external_ids`, but each field named counts as one target.
 * `excluded_segments` is not a target: it narrows whichever target is named.
 */
export { TARGET_FIELDS };

/**
 * OneSignal audience fields Herald does not serve. Ignoring them like other unknown fields
 * would widen the audience (a dropped `excluded_segments` sends to the excluded) or send
 * somewhere the caller did not mean, so each is refused when it holds anything.
 */
const UNSUPPORTED_AUDIENCE_FIELDS = [
  'include_ios_tokens',
];

export const NO_TARGET =
  'Name one audience: included_segments, tag, include_subscription_ids or include_external_ids.';


function isEmpty(value: unknown): boolean {
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object' && value !== null) return Object.keys(value).length === 0;
  return false;
}

/**
 * included_segments: 1 to the segment row's limit of names, their union (issue 38). Names as the
 * segment calls read them (an older built-in name is its segment), duplicates dropped, so
 * ["All", "Subscribed Users"] is one segment. The first wrong name is the one reported.
 */
function readSegments(list: unknown, segmentNames: string[], issues: FieldIssue[]): SendTarget | undefined {
  const limit = TARGET_KINDS.segment.limit;
  if (!Array.isArray(list) || list.length === 0 || list.length > limit) {
    const count = Array.isArray(list) ? `; this request names ${list.length}` : '';
    issues.push({ field: 'included_segments', message: `included_segments holds 1 to ${limit} segment names${count}.` });
    return undefined;
  }
  const names: string[] = [];
  for (const [i, given] of (list as unknown[]).entries()) {
    const field = `included_segments[${i}]`;
    if (typeof given !== 'string') {
      issues.push({ field, message: `${field} must be a segment name.` });
      return undefined;
    }
    if (codePointLength(given) > LIMITS.tag) {
      issues.push({ field, message: `${field} is longer than ${LIMITS.tag} characters.` });
      return undefined;
    }
    const name = segmentNamed(given);
    if (!isBuiltInSegment(name) && !segmentNames.includes(name)) {
      issues.push({ field, message: `Unknown segment "${given}". Use ${BUILT_IN_SEGMENT_LIST} or a segment defined for this app.` });
      return undefined;
    }
    if (!names.includes(name)) names.push(name);
  }
  const [segment, ...others] = names;
  return others.length ? { kind: 'segment', segment, orSegments: others } : { kind: 'segment', segment };
}

/** The list kind whose row holds the limit of each kind of id. */
const LIST_OF = { subscription: 'subscription_ids', external: 'external_ids', onesignal: 'aliases', alias: 'aliases' } as const;

/**
 * The ids of a list target, distinct in first-seen order. The limit counts the ids as given,
 * duplicates included: the contract limits the list the caller sends, and the answer must not
 * depend on how Herald normalises ids (a 501-entry list is refused even if it has duplicates).
 */
function readIds(
  list: string[],
  field: string,
  kind: ListIdKind,
  issues: FieldIssue[],
): string[] | undefined {
  const limit = TARGET_KINDS[LIST_OF[kind]].limit;
  if (list.length > limit) {
    issues.push({ field, message: `${field} holds at most ${limit} ids; this request has ${list.length}.` });
    return undefined;
  }
  const bad: number[] = [];
  const ids: string[] = [];
  const seen = new Set<string>();
  list.forEach((raw, index) => {
    let id = raw;
    if (typeof raw !== 'string') return void bad.push(index);
    if (kind === 'subscription' || kind === 'onesignal') {
      if (!isUuid(raw)) return void bad.push(index);
      id = raw.toLowerCase(); // ids are stored lowercase (DECISIONS "Identity and auth")
    } else {
      const n = codePointLength(raw);
      if (n < 1 || n > LIMITS.external_id) return void bad.push(index);
    }
    if (!seen.has(id)) {
      seen.add(id);
      ids.push(id);
    }
  });
  if (bad.length > 0) {
    const more = bad.length > 1 ? ` (and ${bad.length - 1} more)` : '';
    issues.push({
      field: `${field}[${bad[0]}]`,
      message:
        kind === 'subscription'
          ? `${field}[${bad[0]}] is not a Subscription ID (a UUID)${more}.`
          : kind === 'onesignal'
            ? `${field}[${bad[0]}] is not a OneSignal ID (a UUID)${more}.`
            : `${field}[${bad[0]}] is not ${kind === 'external' ? 'an External ID' : 'an alias id'} of 1 to ${LIMITS.external_id} characters${more}.`,
    });
    return undefined;
  }
  return ids;
}

/**
 * Reads the one target of a send. `present` holds every field the body named (even with a
 * wrong shape, already reported), so that a badly shaped target still counts as named.
 */
export function readTarget(
  body: SendBody,
  present: Set<string>,
  segmentNames: string[],
  issues: FieldIssue[],
): SendTarget | undefined {
  for (const field of UNSUPPORTED_AUDIENCE_FIELDS) {
    if (present.has(field) && !isEmpty((body as Record<string, unknown>)[field])) {
      issues.push({
        field,
        message: `${field} is not supported. Name the audience with included_segments, tag, include_subscription_ids or include_external_ids.`,
      });
    }
  }

  const named = TARGET_FIELDS.filter((field) => present.has(field));
  if (named.length === 0) {
    // No field is at fault: the sentence is placed with the first audience field it lists.
    issues.push({ field: TARGET_FIELDS[0], message: NO_TARGET });
    return undefined;
  }
  if (named.length > 1) {
    // The second audience named is the one too many.
    issues.push({ field: named[1], message: `Name one audience only; this request names ${named.join(' and ')}.` });
    return undefined;
  }

  const field = named[0];
  const { row, spelling } = targetField(field)!;
  const value = (body as Record<string, unknown>)[field];
  // Another spelling is not in the body's schema: its shape is checked here, in its own words.
  if (spelling && !Array.isArray(value)) {
    issues.push({ field, message: `${field} must be an array of ${spelling.means}.` });
    return undefined;
  }
  if (!value) return undefined; // the named field had a wrong shape, already reported
  return READERS[row.kind as ReadKind](value, field, segmentNames, issues);
}

type ReadKind = Exclude<TargetKind, 'activity'>;
type Reader = (value: unknown, field: string, segmentNames: string[], issues: FieldIssue[]) => SendTarget | undefined;

/** How the field of each kind a body may name is read (a Live Activity's is named by its path). */
const READERS: Readonly<Record<ReadKind, Reader>> = {
  segment: (list, _field, segmentNames, issues) => readSegments(list, segmentNames, issues),
  tag: (raw, _field, _names, issues) => {
    const tag = readTag(raw as Record<string, unknown>, 'tag', issues);
    return tag && { kind: 'tag', tag };
  },
  filters: (raw, _field, _names, issues) => {
    const entries = raw as Record<string, unknown>[];
    const single = singleTagFilter(entries);
    if (single) {
      const tag = readTag(single, 'filters[0]', issues);
      return tag && { kind: 'tag', tag };
    }
    const groups = readFilters(entries, issues);
    return groups && { kind: 'filters', groups };
  },
  subscription_ids: (list, field, _names, issues) => {
    const ids = readIds(list as string[], field, 'subscription', issues);
    return ids && { kind: 'subscription_ids', ids };
  },
  external_ids: (list, field, _names, issues) => {
    const ids = readIds(list as string[], field, 'external', issues);
    return ids && { kind: 'external_ids', ids };
  },
  aliases: (aliases, _field, _names, issues) => readAliases(aliases as Record<string, unknown>, issues),
};

/**
 * include_aliases: one label per send (docs/decisions.md "include_aliases"), its ids a list as the
 * contract's (≤ 500). external_id is the list of include_external_ids; onesignal_id names users
 * by their own id; any other label, the users with that alias.
 */
function readAliases(aliases: Record<string, unknown>, issues: FieldIssue[]): SendTarget | undefined {
  const labels = Object.keys(aliases);
  if (labels.length !== 1) {
    issues.push({ field: 'include_aliases', message: `include_aliases names one alias label per send, such as {"external_id": [...]}; this request names ${labels.length}.` });
    return undefined;
  }
  const label = labels[0];
  const field = `include_aliases.${label.slice(0, ALIAS_LABEL_MAX)}`;
  if (label !== ONESIGNAL_ID && !isAliasLabel(label)) {
    issues.push({ field: 'include_aliases', message: `include_aliases: ${JSON.stringify(label.slice(0, ALIAS_LABEL_MAX))} is not an alias label (${ALIAS_LABEL_RULE}, or onesignal_id).` });
    return undefined;
  }
  const list = aliases[label];
  if (!Array.isArray(list)) {
    issues.push({ field, message: `${field} must be an array of ids.` });
    return undefined;
  }
  const kind = idKindOfLabel(label);
  const ids = readIds(list as string[], field, kind, issues);
  if (!ids) return undefined;
  return kind === 'external' ? { kind: 'external_ids', ids } : { kind: 'aliases', label, ids };
}

/** Segment names whose installs a send leaves out (`excluded_segments`; it is not a target). */
export function readExcludedSegments(value: unknown, segmentNames: string[], issues: FieldIssue[]): string[] | undefined {
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return undefined;
  if (!Array.isArray(value) || value.length > LIMITS.excluded_segments || !value.every((v) => typeof v === 'string')) {
    issues.push({ field: 'excluded_segments', message: `excluded_segments is a list of at most ${LIMITS.excluded_segments} segment names.` });
    return undefined;
  }
  const names: string[] = [];
  for (const [i, given] of (value as string[]).entries()) {
    const name = segmentNamed(given);
    if (!isBuiltInSegment(name) && !segmentNames.includes(name)) {
      issues.push({
        field: `excluded_segments[${i}]`,
        message: `excluded_segments: unknown segment "${quoted(given)}". Use ${BUILT_IN_SEGMENT_LIST} or a segment defined for this app.`,
      });
      return undefined;
    }
    if (!names.includes(name)) names.push(name);
  }
  return names;
}
