// Turns an audience (built-in segment, custom segment, tag condition) into a SQL condition on
// `subscriptions`. Shared by the API's estimate and the planner's keyset pages, so both always
// agree on who is in a send. DECISIONS "Audiences".
import type { AppRecord } from '../apps/app-store.js';
import type { AudienceCondition, TagCondition, SendTarget } from '../send-model/request.js';
import { ACTIVE_DAYS, type BuiltInSegment } from '../formats/built-in-segments.js';
import { findSegment, SegmentGoneError } from './segments.js';
import { isConditionTarget } from './target-kinds.js';

const NUMBER = /^-?\d+(\.\d+)?$/;

/** Collects positional parameters while a condition is built. */
export class Params {
  readonly values: unknown[];
  constructor(initial: unknown[] = []) {
    this.values = [...initial];
  }
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

export function tagCondition(tag: TagCondition, params: Params, column = 'tags'): string {
  const key = params.add(tag.key);
  switch (tag.relation) {
    case 'exists':
      return `(${column} ? ${key})`;
    case 'not_exists':
      return `(NOT ${column} ? ${key})`;
    case '=':
      // Tag values are stored as text, so containment matches and the GIN index serves it.
      return `(${column} @> jsonb_build_object(${key}::text, ${params.add(tag.value ?? '')}::text))`;
    case '!=':
      // A device without the tag is "not equal" too (DECISIONS: relations).
      return `(NOT ${column} @> jsonb_build_object(${key}::text, ${params.add(tag.value ?? '')}::text))`;
    case '>':
    case '<': {
      const value = tag.value ?? '';
      const op = tag.relation;
      const v = params.add(value);
      if (NUMBER.test(value)) {
        // Numeric when both sides are numbers, else text order (C collation: byte order, stable).
        return `(CASE WHEN ${column}->>${key} ~ '^-?[0-9]+(\\.[0-9]+)?$' THEN (${column}->>${key})::numeric ${op} ${v}::numeric
                 ELSE (${column}->>${key}) COLLATE "C" ${op} ${v}::text COLLATE "C" END)`;
      }
      return `((${column}->>${key}) COLLATE "C" ${op} ${v}::text COLLATE "C")`;
    }
  }
}

/** One condition of a filters target; every value a parameter. */
function filterCondition(c: AudienceCondition, params: Params): string {
  switch (c.field) {
    case 'tag':
      return tagCondition(c, params);
    case 'language':
      // "!=": a device with no language is not that language either.
      return c.relation === '=' ? `(language = ${params.add(c.value)}::text)` : `(language IS DISTINCT FROM ${params.add(c.value)}::text)`;
    case 'last_session':
    case 'first_session': {
      // "> 24 hours ago": the session was longer ago than that (OneSignal's reading).
      const column = c.field === 'last_session' ? 'last_active' : 'created_at';
      const at = `(now() - ${params.add(c.hoursAgo)}::numeric * interval '1 hour')`;
      return c.relation === '>' ? `(${column} < ${at})` : `(${column} >= ${at})`;
    }
    case 'session_count':
    case 'session_time':
    case 'amount_spent':
      // The column is named by the condition's field, one of three literals; the value a parameter.
      return `(${c.field} ${c.relation === '!=' ? '<>' : c.relation} ${params.add(c.value)}::numeric)`;
  }
}

/**
 * The SQL condition (beyond app and subscribed) of a segment, tag or filters target, narrowed by
 * its excluded segments and push-to-start type. For a list target's devices: narrowing(...).
 */
export function audienceCondition(app: AppRecord, target: SendTarget, params: Params): string {
  if (!isConditionTarget(target)) {
    throw new Error(`audienceCondition: ${target.kind} is not a condition on installs`);
  }
  const included =
    target.kind === 'tag'
      ? tagCondition(target.tag, params)
      : target.kind === 'filters'
        ? groupsCondition(target.groups, params)
        : segmentsCondition(app, [target.segment, ...(target.orSegments ?? [])], params);
  return `${included}${narrowing(app, target, params)}`;
}

/**
 * What narrows any target's installs (alias `s`): " AND NOT (…)" for each excluded segment, for a
 * Live Activity start " AND" the install holds a push-to-start token of the type, for a push
 * of a type with its own token " AND" the install holds one, and for a send narrowed to one
 * platform " AND" the install is of it ('' when none of them).
 */
export function narrowing(app: AppRecord, target: Pick<SendTarget, 'excluding' | 'pushToStart' | 'pushToken' | 'platform'>, params: Params): string {
  const start = target.pushToStart === undefined ? '' : ` AND EXISTS (${startTokenOf(params.add(target.pushToStart))})`;
  const typed = target.pushToken === undefined ? '' : ` AND EXISTS (SELECT 1 ${pushTypeTokenOf(params.add(target.pushToken))})`;
  // isIos / isAndroid naming one platform: that platform's installs only (migration 071's column;
  // unqualified as the segment conditions are, since some callers read subscriptions without `s`).
  const platform = target.platform === undefined ? '' : ` AND platform = ${params.add(target.platform)}::text`;
  return `${exclusion(app, target.excluding, params)}${start}${typed}${platform}`;
}

/** FROM/WHERE of the token of a push type (a parameter) of install `s` (migration 046, its primary key). */
function pushTypeTokenOf(pushType: string): string {
  return `FROM push_type_tokens p WHERE p.subscription_id = s.id AND p.push_type = ${pushType}::text`;
}

/** The push-to-start token row of install `s` for an activity type (a parameter). */
function startTokenOf(type: string): string {
  return `SELECT 1 FROM live_activity_tokens t WHERE t.app_id = s.app_id AND t.kind = 'start' AND t.activity = ${type}::text AND t.subscription_id = s.id`;
}

/**
 * The column a device's push goes to: its APNs token, for a Live Activity start its push-to-start
 * token, for a push of a type with its own token (VoIP, location, …) that token.
 */
export function deviceTokenColumn(target: Pick<SendTarget, 'pushToStart' | 'pushToken'>, params: Params): string {
  if (target.pushToken !== undefined) return `(SELECT p.token ${pushTypeTokenOf(params.add(target.pushToken))})`;
  if (target.pushToStart === undefined) return 's.token';
  return `(SELECT t.token FROM live_activity_tokens t WHERE t.app_id = s.app_id AND t.kind = 'start' AND t.activity = ${params.add(target.pushToStart)}::text AND t.subscription_id = s.id)`;
}

/** " AND NOT (…)" for each excluded segment ('' when none). */
export function exclusion(app: AppRecord, excluding: string[] | undefined, params: Params): string {
  return (excluding ?? []).map((name) => ` AND NOT ${segmentCondition(app, name, params)}`).join('');
}

/** Who each built-in segment holds (core/formats/built-in-segments.ts names them; one entry each). */
const BUILT_IN_CONDITIONS: Readonly<Record<BuiltInSegment, string>> = {
  'Subscribed Users': 'true',
  'Active Users': `(last_active >= now() - interval '${ACTIVE_DAYS} days')`,
  'Inactive Users': `(last_active IS NULL OR last_active < now() - interval '${ACTIVE_DAYS} days')`,
};

/** Groups ORed, conditions within a group ANDed (a `filters` list's reading); an empty group holds everyone. */
function groupsCondition(groups: AudienceCondition[][], params: Params): string {
  return `(${groups.map((g) => (g.length ? `(${g.map((c) => filterCondition(c, params)).join(' AND ')})` : 'true')).join(' OR ')})`;
}

/**
 * included_segments' names: one segment's condition, or their OR (their union). One condition on
 * the install row, so the planner's keyset pages by seq read each install once, whatever number of
 * segments hold it, and the estimate counts it once.
 */
function segmentsCondition(app: AppRecord, names: string[], params: Params): string {
  if (names.length === 1) return segmentCondition(app, names[0], params);
  return `(${names.map((name) => segmentCondition(app, name, params)).join(' OR ')})`;
}

/** Any segment, whichever its source, through the one lookup (core/audience/segments.ts). */
function segmentCondition(app: AppRecord, name: string, params: Params): string {
  const segment = findSegment(app, name);
  if (!segment) throw new SegmentGoneError(name, app.name);
  if (segment.source === 'built_in') return BUILT_IN_CONDITIONS[segment.name as BuiltInSegment];
  return groupsCondition(segment.groups, params);
}
