// Turns an audience (built-in segment, custom segment, tag condition) into a SQL condition on
// `subscriptions`. Shared by the API's estimate and the planner's keyset pages, so both always
// agree on who is in a send. DECISIONS "Audiences".
import type { AppRecord } from '../apps/app-store.js';
import type { TagCondition, SendTarget } from '../send/request.js';

export const BUILT_IN_SEGMENTS = ['Subscribed Users', 'Active Users', 'Inactive Users'] as const;
const ACTIVE_DAYS = 7;
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

/** The SQL condition (beyond app and subscribed) of a segment or tag target. */
export function audienceCondition(app: AppRecord, target: SendTarget, params: Params): string {
  if (target.kind === 'tag') return tagCondition(target.tag, params);
  if (target.kind !== 'segment') throw new Error(`audienceCondition: ${target.kind} is a list target`);
  switch (target.segment) {
    case 'Subscribed Users':
      return 'true';
    case 'Active Users':
      return `(last_active >= now() - interval '${ACTIVE_DAYS} days')`;
    case 'Inactive Users':
      return `(last_active IS NULL OR last_active < now() - interval '${ACTIVE_DAYS} days')`;
  }
  const custom = app.segments.find((s) => s.name === target.segment);
  if (!custom) throw new Error(`segment ${target.segment} is not defined for app ${app.name}`);
  if (!custom.conditions.length) return 'true';
  return custom.conditions.map((c) => tagCondition(c, params)).join(' AND ');
}
