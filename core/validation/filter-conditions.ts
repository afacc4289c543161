// The condition language of a send's `tag` and `filters` and of a segment's filters (contract
// "Target rule"): one reader for all of them, so a segment and a send say the same sentences.
import type { FieldIssue } from '../errors.js';
import type { AudienceCondition, TagCondition, TagRelation } from '../send-model/request.js';
import { COUNTER_FIELDS, FILTER_FIELDS } from '../audience/filter-schema.js';
import { LIMITS } from './limits.js';
import { codePointLength, quoted } from './text.js';
import { isLanguageCode } from '../formats/language-code.js';
import { TAG_RELATIONS, isTagRelation } from '../formats/tags.js';

/** A tag condition, from `tag` or from one entry of `filters` (`where` names it in messages). */
export function readTag(
  raw: Record<string, unknown>,
  where: string,
  issues: FieldIssue[],
): TagCondition | undefined {
  const before = issues.length;
  if (raw.field !== undefined && raw.field !== 'tag') {
    // Another kind of filter: its members mean something else, so say only this.
    issues.push({ field: `${where}.field`, message: `${where}.field must be "tag" here.` });
    return undefined;
  }
  const key = raw.key;
  if (typeof key !== 'string' || key.trim() === '') {
    issues.push({ field: `${where}.key`, message: `${where}.key must be the name of a tag.` });
  } else if (codePointLength(key) > LIMITS.tag) {
    issues.push({ field: `${where}.key`, message: `${where}.key is longer than ${LIMITS.tag} characters.` });
  }
  const relation = raw.relation;
  if (!isTagRelation(relation)) {
    issues.push({ field: `${where}.relation`, message: `${where}.relation must be one of ${TAG_RELATIONS.join(', ')}.` });
  }
  const needsValue = relation !== 'exists' && relation !== 'not_exists';
  let value: string | undefined;
  if (needsValue) {
    if (raw.value === undefined || raw.value === null) {
      issues.push({ field: `${where}.value`, message: `${where}.value is required with relation "${quoted(String(relation))}".` });
    } else if (typeof raw.value === 'string' && codePointLength(raw.value) > LIMITS.tag) {
      issues.push({ field: `${where}.value`, message: `${where}.value is longer than ${LIMITS.tag} characters.` });
    } else if (typeof raw.value === 'string') {
      value = raw.value;
    } else if (typeof raw.value === 'number') {
      value = String(raw.value); // tag values are text on devices; 10 and "10" match alike
    } else {
      issues.push({ field: `${where}.value`, message: `${where}.value must be text or a number.` });
    }
  }
  // exists / not_exists: a value, if sent, has no meaning and is dropped.
  if (issues.length > before) return undefined;
  const tag: TagCondition = { key: key as string, relation: relation as TagRelation };
  if (needsValue) tag.value = value;
  return tag;
}

/**
 * `filters` with several entries: conditions ANDed with their neighbours, {"operator": "OR"}
 * between groups (OneSignal's rule). Fields: tag (key, relation, value), language (= or !=, a
 * language code), last_session and first_session (> or <, hours_ago: more or fewer hours ago),
 * session_count, session_time and amount_spent (>, <, = or != a number).
 * The one validator of the condition language: a send's `filters` and a segment's (core/segments).
 */
export function readFilters(entries: Record<string, unknown>[], issues: FieldIssue[]): AudienceCondition[][] | undefined {
  if (entries.length === 0 || entries.length > LIMITS.filter_entries) {
    issues.push({ field: 'filters', message: `filters holds 1 to ${LIMITS.filter_entries} entries.` });
    return undefined;
  }
  const before = issues.length;
  const groups: AudienceCondition[][] = [[]];
  let afterCondition = false; // the previous entry was a condition (valid or not)
  entries.forEach((raw, i) => {
    const where = `filters[${i}]`;
    if (issues.length - before >= 5) return; // a few sentences are enough to fix a list
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      issues.push({ field: where, message: `${where} must be an object.` });
      return;
    }
    if (raw.operator !== undefined) {
      if (raw.operator === 'AND' && Object.keys(raw).length === 1) return; // neighbours are ANDed anyway
      if (raw.operator !== 'OR' || Object.keys(raw).length !== 1) {
        issues.push({ field: where, message: `${where} is an operator entry: {"operator": "OR"} (or "AND"), nothing else.` });
      } else if (!afterCondition) {
        issues.push({ field: where, message: `${where}: "OR" must stand between two conditions.` });
      } else groups.push([]);
      afterCondition = false;
      return;
    }
    afterCondition = true;
    const condition = readCondition(raw, where, issues);
    if (condition) groups[groups.length - 1].push(condition);
  });
  if (issues.length > before) return undefined;
  if (!afterCondition) {
    issues.push({ field: `filters[${entries.length - 1}]`, message: 'filters: "OR" must stand between two conditions.' });
    return undefined;
  }
  return groups;
}

const HOURS = /^\d{1,6}(\.\d{1,3})?$/;

function readCondition(raw: Record<string, unknown>, where: string, issues: FieldIssue[]): AudienceCondition | undefined {
  const field = raw.field ?? 'tag';
  if (field === 'tag') {
    const tag = readTag(raw, where, issues);
    return tag && { field: 'tag', ...tag };
  }
  if (field === 'language') {
    if ((raw.relation !== '=' && raw.relation !== '!=') || typeof raw.value !== 'string' || !isLanguageCode(raw.value)) {
      issues.push({ field: where, message: `${where}: a language filter is {"field": "language", "relation": "=" or "!=", "value": a language code such as "en"}.` });
      return undefined;
    }
    return { field: 'language', relation: raw.relation, value: raw.value };
  }
  if (field === 'last_session' || field === 'first_session') {
    const hours = typeof raw.hours_ago === 'number' ? String(raw.hours_ago) : raw.hours_ago;
    if ((raw.relation !== '>' && raw.relation !== '<') || typeof hours !== 'string' || !HOURS.test(hours)) {
      issues.push({ field: where, message: `${where}: a ${field} filter is {"field": "${field}", "relation": ">" or "<", "hours_ago": a number of hours such as "24"}.` });
      return undefined;
    }
    return { field, relation: raw.relation, hoursAgo: Number(hours) };
  }
  if ((COUNTER_FIELDS as readonly unknown[]).includes(field)) return readCounter(raw, field as (typeof COUNTER_FIELDS)[number], where, issues);
  issues.push({ field: `${where}.field`, message: `${where}.field must be one of ${FILTER_FIELDS.join(', ')}; Herald records no other field of an install.` });
  return undefined;
}

const COUNTER = /^\d{1,12}(\.\d{1,2})?$/;

/** session_count, session_time (seconds) or amount_spent: >, <, = or != a number (a JSON number or its text, as OneSignal takes). */
function readCounter(raw: Record<string, unknown>, field: (typeof COUNTER_FIELDS)[number], where: string, issues: FieldIssue[]): AudienceCondition | undefined {
  const value = typeof raw.value === 'number' ? String(raw.value) : raw.value;
  const relation = raw.relation;
  if ((relation !== '>' && relation !== '<' && relation !== '=' && relation !== '!=') || typeof value !== 'string' || !COUNTER.test(value)) {
    issues.push({ field: where, message: `${where}: a ${field} filter is {"field": "${field}", "relation": ">", "<", "=" or "!=", "value": a number from 0 such as "10"}.` });
    return undefined;
  }
  return { field, relation, value: Number(value) };
}
