// A language code as a send's `contents`/`headings` keys, an install's `language` and a language
// filter take it: two lowercase letters, optionally a region or script subtag of 2 to 4 letters
// (en, pt-BR, zh-Hans). A function for code, a pattern string for the JSON Schemas.

/** The JSON Schema / OpenAPI `pattern`. */
export const LANGUAGE_CODE_PATTERN = '^[a-z]{2}(-[A-Za-z]{2,4})?$';

const LANGUAGE_CODE = new RegExp(LANGUAGE_CODE_PATTERN);

/** Whether `text` is a language code. */
export function isLanguageCode(text: string): boolean {
  return LANGUAGE_CODE.test(text);
}
