// Which language of a send a device receives (contract "Language rule"; DECISIONS "Bodies":
// a device with `pt-BR` gets `pt-BR`, else `pt`, else the default language).
import type { SendRequest } from '../send-model/request.js';

/** Finds `wanted` among `keys` ignoring case; returns the key as written in the request. */
function findKey(keys: string[], wanted: string): string | undefined {
  const w = wanted.toLowerCase();
  return keys.find((k) => k.toLowerCase() === w);
}

/**
 * The `contents` language for a device. The device's language tag is tried whole, then with its
 * last subtag dropped, down to the bare language (`zh-Hans-CN` → `zh-Hans` → `zh`), so iOS's
 * region-qualified tags find the request's languages. `_` is read as `-` and case is ignored
 * (iOS reports `pt_BR`; the request writes `pt-BR`). No match, or no device language: the
 * request's default language.
 */
export function pickLanguage(
  req: Pick<SendRequest, 'contents' | 'defaultLanguage'>,
  deviceLanguage?: string,
): string {
  if (deviceLanguage) {
    const keys = Object.keys(req.contents);
    const parts = deviceLanguage.trim().replace(/_/g, '-').split('-').filter(Boolean);
    for (let n = parts.length; n > 0; n--) {
      const found = findKey(keys, parts.slice(0, n).join('-'));
      if (found !== undefined) return found;
    }
  }
  return req.defaultLanguage;
}

/**
 * The text of `map` for a language already picked from `contents`: that language, else its bare
 * language (`pt` for `pt-BR`), else the default language's. Used for `headings`, which may name
 * fewer languages than `contents`.
 */
export function textFor(
  map: Record<string, string> | undefined,
  language: string,
  defaultLanguage: string,
): string | undefined {
  if (!map) return undefined;
  const keys = Object.keys(map);
  const bare = language.split('-')[0];
  for (const candidate of [language, bare, defaultLanguage]) {
    const key = findKey(keys, candidate);
    if (key !== undefined) return map[key];
  }
  return undefined;
}
