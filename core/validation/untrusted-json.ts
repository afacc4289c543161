// Untrusted JSON is walked once, right after it is parsed and before any code reads it (linear in
// its size; its depth is already bounded by the body reader):
// - A key that reaches an object's prototype when the object is copied or merged (`__proto__`,
//   `constructor`, `prototype`) is refused: `{"__proto__": {"included_segments": [...]}}` once
//   turned a list send into a broadcast through an inherited property. No field of any body
//   Herald reads has such a name, so refusing them costs no caller anything.
// - Text PostgreSQL cannot store is refused: U+0000 (text and jsonb reject it) and an unpaired
//   UTF-16 surrogate (not Unicode, so not UTF-8). Both answered 500 when they reached SQL.
// Each is a 422 naming the field, never a 500.
import { ValidationError } from '../errors.js';
import { quoted } from './text.js';

export const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Why PostgreSQL cannot store `s`, or undefined when it can. */
export function unstorableText(s: string): string | undefined {
  if (s.includes('\u0000')) return 'contains U+0000 (a NUL character), which cannot be stored';
  if (!(s as string & { isWellFormed(): boolean }).isWellFormed()) return 'contains an unpaired UTF-16 surrogate, which is not valid Unicode';
  return undefined;
}

/** A 422 naming `field` when PostgreSQL cannot store `s` (`named`: how the sentence names it). */
export function assertStorableText(s: string, field: string, named = field): void {
  const problem = unstorableText(s);
  if (problem) throw new ValidationError({ field, message: `${named} ${problem}.` });
}

const at = (path: string, key: string) => (path ? `${path}.${key}` : key);

/** Throws a ValidationError naming the first refused key or text; returns `value` unchanged. */
export function checkUntrustedJson<T>(value: T, path = ''): T {
  if (typeof value === 'string') assertStorableText(value, path, path || 'The body');
  else if (Array.isArray(value)) value.forEach((item, i) => checkUntrustedJson(item, `${path}[${i}]`));
  else if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      if (PROTOTYPE_KEYS.has(key)) throw new ValidationError({ field: at(path, key), message: `${at(path, key)} is not accepted: no field is named ${key}.` });
      const problem = unstorableText(key);
      if (problem) throw new ValidationError({ field: path, message: `The key "${quoted(key.replace(/[\u0000\uD800-\uDFFF]/g, '\uFFFD'))}" in ${path || 'the body'} ${problem}.` });
      checkUntrustedJson((value as Record<string, unknown>)[key], at(path, key));
    }
  }
  return value;
}
