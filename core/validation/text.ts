// Lengths in the contract ("Up to 2,000 characters", …) are counted in Unicode code points:
// what a person counts as characters for almost all text, and independent of UTF-16, so an
// emoji counts once rather than twice. The 4 KB rule counts bytes separately.

export function codePointLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** The first `max` code points of `s` (never splits a surrogate pair). */
export function cutToCodePoints(s: string, max: number): string {
  if (s.length <= max) return s; // UTF-16 length bounds the code point count from above
  let out = '';
  let n = 0;
  for (const ch of s) {
    if (n++ === max) break;
    out += ch;
  }
  return out;
}

/** How much of a caller's string a message quotes: enough to recognise it, never the whole body. */
export const MAX_QUOTED_CHARS = 40;

/** `s` cut for quoting in a message, with "…" when cut. */
export function quoted(s: string): string {
  const cut = cutToCodePoints(s, MAX_QUOTED_CHARS);
  return cut.length < s.length ? `${cut}…` : s;
}
