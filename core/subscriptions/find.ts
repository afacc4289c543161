// Finding an app's installs for the dashboard's audience pages. One box takes what a person has at
// hand and the text says what it is (issue 26): a UUID is a subscription id, hex digits the start
// of an APNs token (8 or more of an FCM token's characters, not all hex, the start of an Android
// one), key=value a tag, and any text can be an external id (the one alias Herald keeps), so a
// UUID, a token's start or key=value are also looked up as an external id: an app whose external ids
// are UUIDs or numbers finds them as typed. The select narrows the search to one kind.
// Read only; every lookup is one app's, bounded and served by an index (the token prefix by
// migration 022's; the tag by the GIN index through core/audience's tag condition, so a tag means
// the same here as in a send). The text is checked for its length and for what PostgreSQL cannot
// take first, then read in one pass: anchored patterns without nested repetition and one indexOf,
// so reading it takes time linear in its (bounded) length.
import type { Queryable } from '../store/db.js';
import { Params, tagCondition } from '../audience/filter.js';
import { unstorableText } from '../validation/untrusted-json.js';
import { LIMITS } from '../validation/limits.js';
import { codePointLength } from '../validation/text.js';
import { isUuid } from '../formats/uuid.js';
import { DEVICE_TOKEN_MAX_HEX } from '../formats/device-token.js';

export type FindBy = 'subscription_id' | 'external_id' | 'token' | 'tag';
/** The refinements of the select; `any` (the default) lets the text say what it is. */
export const FIND_BY: readonly FindBy[] = ['subscription_id', 'external_id', 'token', 'tag'];
export const ANY = 'any';
export const MAX_FOUND = 50;
export const MAX_QUERY_CHARS = 256;
/** The start of a token: enough digits to mean something, at most a whole token. */
const TOKEN_PREFIX = new RegExp(`^[0-9a-f]{4,${DEVICE_TOKEN_MAX_HEX}}$`);
/**
 * The start of an FCM registration token (an Android install, core/formats/fcm-token.ts): its
 * characters, kept as typed (FCM tokens are case-sensitive), from 8 (a short word is not read as
 * one) to what the box takes. Hex digits alone are an APNs token's start.
 */
const FCM_MIN_PREFIX = 8;
const FCM_PREFIX = new RegExp(`^[A-Za-z0-9_:.-]{${FCM_MIN_PREFIX},${MAX_QUERY_CHARS}}$`);
const HEX = /^[0-9a-fA-F]+$/;
const isFcmPrefix = (text: string) => FCM_PREFIX.test(text) && !HEX.test(text) && !isUuid(text);
const TOKEN_RULE = `A token prefix is 4 to ${DEVICE_TOKEN_MAX_HEX} hex digits (0-9, a-f) for an iOS install, or ${FCM_MIN_PREFIX} to ${MAX_QUERY_CHARS} characters of A-Z, a-z, 0-9, _, :, . and - for an Android one.`;

/** One way to read the text: a kind and its value (a tag's value apart). */
export interface Lookup {
  by: FindBy;
  value: string;
  tagValue?: string;
}

export interface InstallSummary {
  id: string;
  token: string;
  external_id: string | null;
  language: string | null;
  subscribed: boolean;
  /** Who unsubscribed it: 'app' (its SDK), the gateway's reason (Apple's or Google's), or null (subscribed, or no reason recorded). */
  unsubscribed_reason: string | null;
  last_active: Date | null;
  created_at: Date;
  /** 'ios' (APNs) or 'android' (FCM), migration 071. */
  platform: InstallPlatform;
}

/** The platforms an install has (subscriptions.platform), in the order pages name them. */
export const INSTALL_PLATFORMS = ['ios', 'android'] as const;
export type InstallPlatform = (typeof INSTALL_PLATFORMS)[number];
export const isInstallPlatform = (value: unknown): value is InstallPlatform => INSTALL_PLATFORMS.includes(value as InstallPlatform);

/** A search that cannot run, in a sentence naming the field and what it accepts. */
export class FindError extends Error {
  override name = 'FindError';
}

const TAG_RULE = 'A tag is key=value, such as plan=gold.';

/**
 * The tag `q` names, or undefined. The key is trimmed (a key with spaces around it is a typing
 * slip), the value is not: tag values are stored as sent, and a stored " gold" must be findable.
 */
function tagOf(q: string): Lookup | undefined {
  const eq = q.indexOf('=');
  const key = eq < 0 ? '' : q.slice(0, eq).trim();
  return key ? { by: 'tag', value: key, tagValue: q.slice(eq + 1) } : undefined;
}

/** Every kind the text can be, in the order the page names them. */
function readAny(q: string, text: string): Lookup[] {
  const lower = text.toLowerCase();
  const lookups: Lookup[] = [];
  if (isUuid(text)) lookups.push({ by: 'subscription_id', value: lower });
  if (codePointLength(text) <= LIMITS.external_id) lookups.push({ by: 'external_id', value: text });
  if (TOKEN_PREFIX.test(lower)) lookups.push({ by: 'token', value: lower });
  else if (isFcmPrefix(text)) lookups.push({ by: 'token', value: text });
  const tag = tagOf(q);
  if (tag) lookups.push(tag);
  return lookups;
}

/** Checks a search (`by`: a refinement or `any`) and returns the lookups it stands for. */
export function parseFind(by: string, q: string): Lookup[] {
  if (by !== ANY && !FIND_BY.includes(by as FindBy)) throw new FindError(`by is one of ${[ANY, ...FIND_BY].join(', ')}.`);
  // q as typed: a tag's value keeps its spaces, so they count too. Checked before anything reads it.
  if (q.length > MAX_QUERY_CHARS) throw new FindError(`q is longer than ${MAX_QUERY_CHARS} characters.`);
  // Nothing stored can contain it, and PostgreSQL refuses it in a parameter (a 500, not a 400).
  const unstorable = unstorableText(q);
  if (unstorable) throw new FindError(`q ${unstorable}.`);
  const text = q.trim();
  if (!text) throw new FindError('q is empty: type what to look for.');
  switch (by as FindBy | typeof ANY) {
    case ANY: {
      const lookups = readAny(q, text);
      if (lookups.length === 0) throw new FindError(`q is nothing an install has: an external id is at most ${LIMITS.external_id} characters, a token at most ${DEVICE_TOKEN_MAX_HEX} hex digits (iOS) or ${MAX_QUERY_CHARS} of A-Z, a-z, 0-9, _, :, . and - (Android), a tag key=value.`);
      return lookups;
    }
    case 'subscription_id':
      if (!isUuid(text)) throw new FindError('A subscription id is a UUID such as 5b0b6f2e-0f55-4c3c-9d0b-1f0a0e6f6c11.');
      return [{ by: 'subscription_id', value: text.toLowerCase() }];
    case 'external_id':
      return [{ by: 'external_id', value: text }];
    case 'token':
      if (isFcmPrefix(text)) return [{ by: 'token', value: text }];
      if (!TOKEN_PREFIX.test(text.toLowerCase())) throw new FindError(TOKEN_RULE);
      return [{ by: 'token', value: text.toLowerCase() }];
    case 'tag': {
      const tag = tagOf(q);
      if (!tag) throw new FindError(TAG_RULE);
      return [tag];
    }
  }
}

/** The columns of an InstallSummary: every list of installs reads these. */
export const INSTALL_SUMMARY_COLUMNS = 'id, token, external_id, language, subscribed, unsubscribed_reason, last_active, created_at, platform';
const COLUMNS = INSTALL_SUMMARY_COLUMNS;

function condition(lookup: Lookup, params: Params): string {
  switch (lookup.by) {
    case 'subscription_id':
      return `id = ${params.add(lookup.value)}::uuid`;
    case 'external_id':
      return `external_id = ${params.add(lookup.value)}`;
    case 'token':
      // APNs tokens are lowercase hex, so every token starting with the prefix sorts before
      // prefix || 'g'; an FCM token's characters are all below U+007F, so prefix || U+007F bounds it.
      return `token ~>=~ ${params.add(lookup.value)} AND token ~<~ ${params.add(`${lookup.value}${/^[0-9a-f]+$/.test(lookup.value) ? 'g' : '\u007f'}`)}`;
    case 'tag':
      return tagCondition({ key: lookup.value, relation: '=', value: lookup.tagValue ?? '' }, params);
  }
}

/**
 * The statement of a search (exported so a test can EXPLAIN it): each lookup on its own index,
 * newest first and bounded, then merged (an install found two ways is listed once).
 */
export function findInstallsQuery(appId: string, lookups: Lookup[]): { text: string; values: unknown[] } {
  const params = new Params([appId]);
  const arms = lookups.map(
    (lookup) => `(SELECT seq, ${COLUMNS} FROM subscriptions WHERE app_id = $1 AND ${condition(lookup, params)} ORDER BY seq DESC LIMIT ${MAX_FOUND})`,
  );
  return { text: `SELECT ${COLUMNS} FROM (${arms.join(' UNION ')}) found ORDER BY seq DESC LIMIT ${MAX_FOUND}`, values: params.values };
}

/** Up to MAX_FOUND installs of the app, newest first. */
export async function findInstalls(db: Queryable, appId: string, lookups: Lookup[]): Promise<InstallSummary[]> {
  return (await db.query<InstallSummary>(findInstallsQuery(appId, lookups))).rows;
}
