// The one body checker (issue 36 point 2): one Ajv instance for every request body, query and
// path schema of the REST calls, each schema compiled once, and one translator from Ajv's errors to
// Herald's FieldIssues. Every 4xx names its field by the same path format (`a.b[0].c`, '' for the
// body as a whole) and says one sentence per field: the call's own sentence where the contract or
// the call gives one, else one of the defaults below, worded by the broken keyword.
//
// A call's sentences are a table `path pattern → sentence`: `filters[].value` matches every
// index, and a top-level name (`contents`) matches anything under it. The first pattern that
// matches wins: the exact path, then the path with its indexes as `[]`, then its top-level field,
// then `*` (any field the table does not name: a field the call does not take). A pattern may name
// the broken keyword (`name:maxLength`, `push_token:required`): it is tried before the plain one, so
// a field can say one sentence when too long and another when missing (`*:additionalProperties`
// speaks for every field the call does not take). A sentence's `{field}` is the field's path
// (`tags.level`, where the pattern was `tags`). A sentence may be worded from the field's path and
// the broken rule (a function of them: its keyword, the value given); it answers undefined to
// leave the default.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { Static, TSchema } from 'typebox';
import { ValidationError, type FieldIssue } from '../errors.js';
import { isUuid } from '../formats/uuid.js';

/** One field's sentence: fixed, or worded from the field's path and the broken rule (undefined: the default). */
export type Sentence = string | ((path: string, error: ErrorObject) => string | undefined);

/** Sentences of one schema: path pattern (`path` or `path:keyword`) → sentence (see the header). */
export type Sentences = Readonly<Record<string, Sentence>>;

export const BODY_NOT_OBJECT = 'The request body must be a JSON object.';

// allErrors: a body failing two rules says both (one sentence per field, below). verbose: the
// translator reads the failing schema's own words (its enum, its limits) from the error.
const ajv = new Ajv({ allErrors: true, verbose: true, strict: true, allowUnionTypes: true, formats: { uuid: isUuid } });
const compiled = new WeakMap<object, ValidateFunction>();

function validatorOf(schema: object): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** `/filters/0/value` (+ a missing or extra property) → `filters[0].value`. */
export function fieldPath(error: Pick<ErrorObject, 'instancePath' | 'keyword' | 'params'>): string {
  const parts = error.instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  if (error.keyword === 'required' && params.missingProperty !== undefined) parts.push(params.missingProperty);
  if (error.keyword === 'additionalProperties' && params.additionalProperty !== undefined) parts.push(params.additionalProperty);
  return parts.reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '');
}

const TYPE_WORDS: Record<string, string> = {
  string: 'text',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  null: 'null',
};

function typeWords(type: unknown): string {
  const types = Array.isArray(type) ? type : [type];
  return types.map((t) => TYPE_WORDS[String(t)] ?? String(t)).join(' or ');
}

/** The default sentence of one error about `path`, worded by its keyword. */
function defaultSentence(path: string, error: ErrorObject): string {
  const p = error.params as Record<string, unknown>;
  const schema = error.parentSchema as Record<string, unknown> | undefined;
  switch (error.keyword) {
    case 'required':
      return `${path} is required.`;
    case 'type':
      return path === '' && p.type === 'object' ? BODY_NOT_OBJECT : `${path || 'The body'} must be ${typeWords(p.type)}.`;
    case 'enum':
      return `${path} is one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}.`;
    case 'const':
      return `${path} must be ${JSON.stringify(p.allowedValue)}.`;
    case 'maxLength':
      return `${path} is at most ${p.limit} characters.`;
    case 'minLength':
      return p.limit === 1 ? `${path} must not be empty.` : `${path} is at least ${p.limit} characters.`;
    case 'maximum':
      return `${path} is at most ${p.limit}.`;
    case 'minimum':
      return `${path} is at least ${p.limit}.`;
    case 'maxItems':
      return `${path} has at most ${p.limit} entries.`;
    case 'minItems':
      return `${path} has at least ${p.limit} ${p.limit === 1 ? 'entry' : 'entries'}.`;
    case 'maxProperties':
      return `${path} has at most ${p.limit} keys.`;
    case 'additionalProperties':
      return `${path} is not a field of this call.`;
    case 'format':
      return `${path} must be a ${p.format}.`;
    case 'anyOf':
    case 'oneOf': {
      const branches = (schema?.[error.keyword] ?? []) as Array<Record<string, unknown>>;
      if (branches.every((b) => 'const' in b)) return `${path} is one of ${branches.map((b) => JSON.stringify(b.const)).join(', ')}.`;
      return `${path || 'The body'} does not take this form.`;
    }
    case 'pattern':
      return `${path} is not in the form ${typeof schema?.description === 'string' ? schema.description : 'this field takes'}.`;
    default:
      return `${path || 'The body'} ${error.message ?? 'is not valid'}.`;
  }
}

/** The call's sentence for `path` broken by `error`, if its table has one (see the header). */
function ownSentence(path: string, error: ErrorObject, sentences: Sentences): string | undefined {
  const top = /^[^.[]*/.exec(path)?.[0] ?? path;
  for (const pattern of [path, path.replace(/\[\d+\]/g, '[]'), top, '*']) {
    const sentence = sentences[`${pattern}:${error.keyword}`] ?? sentences[pattern];
    if (sentence !== undefined) return typeof sentence === 'function' ? sentence(path, error) : sentence.replaceAll('{field}', path);
  }
  return undefined;
}

const UNIONS = new Set(['anyOf', 'oneOf']);

/** Whether `path` is `under` or inside it. */
function within(path: string, under: string): boolean {
  return path === under || under === '' || path.startsWith(`${under}.`) || path.startsWith(`${under}[`);
}

/**
 * At most this many fields in a 422: a body of 30,000 bad tags gets a short answer, and its
 * sentences cost no more than ten fields' (writing 30,000 took half a second).
 */
export const MAX_ISSUES = 10;

/**
 * Ajv's errors as FieldIssues: one per field (its first error), in the body's order of errors, the
 * first MAX_ISSUES fields. A union's branches each fail in their own way; the union's one error
 * speaks for them.
 */
export function issuesOf(errors: readonly ErrorObject[] | null | undefined, sentences: Sentences = {}): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const seen = new Set<string>();
  const unions = (errors ?? []).filter((e) => UNIONS.has(e.keyword)).map(fieldPath);
  for (const error of errors ?? []) {
    if (issues.length === MAX_ISSUES) break;
    const field = fieldPath(error);
    if (!UNIONS.has(error.keyword) && unions.some((union) => within(field, union))) continue;
    if (seen.has(field)) continue;
    seen.add(field);
    issues.push({ field, message: ownSentence(field, error, sentences) ?? defaultSentence(field, error) });
  }
  return issues;
}

/**
 * A checked value of schema `S`: its static type when valid, else its fields' issues (the first
 * MAX_ISSUES) and the path of every broken field, however many (a caller that drops the broken
 * fields and goes on with the rest must drop them all, not the ten it names).
 */
export type Checked<S extends TSchema> = { ok: true; value: Static<S> } | { ok: false; issues: FieldIssue[]; broken: string[] };

/** Checks `value` against `schema` (compiled once) and says every broken rule. */
export function checkValue<S extends TSchema>(schema: S, value: unknown, sentences?: Sentences): Checked<S> {
  const validate = validatorOf(schema);
  if (validate(value)) return { ok: true, value: value as Static<S> };
  return { ok: false, issues: issuesOf(validate.errors, sentences), broken: (validate.errors ?? []).map(fieldPath) };
}

/** The typed value of `value`, or a 422 listing every broken rule in one format. */
export function checked<S extends TSchema>(schema: S, value: unknown, sentences?: Sentences): Static<S> {
  const result = checkValue(schema, value, sentences);
  if (!result.ok) throw new ValidationError(result.issues);
  return result.value;
}
