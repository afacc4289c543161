// Finding an app's installs for the dashboard's audience pages: by subscription id, external id,
// the start of the token, or a tag. Read only; every lookup is one app's, bounded and served by an
// index (the token prefix by migration 022's; the tag by the GIN index through core/audience's
// tag condition, so a tag means the same here as in a send).
import type { Queryable } from '../store/db.js';
import { Params, tagCondition } from '../audience/filter.js';
import { unstorableText } from '../validation/untrusted-json.js';

export type FindBy = 'subscription_id' | 'external_id' | 'token' | 'tag';
export const FIND_BY: readonly FindBy[] = ['subscription_id', 'external_id', 'token', 'tag'];
export const MAX_FOUND = 50;
export const MAX_QUERY_CHARS = 256;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TOKEN_PREFIX = /^[0-9a-f]{4,200}$/;

export interface InstallSummary {
  id: string;
  token: string;
  external_id: string | null;
  language: string | null;
  subscribed: boolean;
  last_active: Date | null;
  created_at: Date;
}

/** A search that cannot run, in a sentence naming the field and what it accepts. */
export class FindError extends Error {
  override name = 'FindError';
}

/** Checks a query for its kind: the value to look up (the tag as key and value). */
export function parseFind(by: string, q: string): { by: FindBy; value: string; tagValue?: string } {
  if (!FIND_BY.includes(by as FindBy)) throw new FindError(`by is one of ${FIND_BY.join(', ')}.`);
  const text = q.trim();
  if (!text) throw new FindError('q is empty: type what to look for.');
  // q as typed: a tag's value keeps its spaces (below), so they count too.
  if (q.length > MAX_QUERY_CHARS) throw new FindError(`q is longer than ${MAX_QUERY_CHARS} characters.`);
  // Nothing stored can contain it, and PostgreSQL refuses it in a parameter (a 500, not a 400).
  const unstorable = unstorableText(q);
  if (unstorable) throw new FindError(`q ${unstorable}.`);
  switch (by as FindBy) {
    case 'subscription_id':
      if (!UUID.test(text.toLowerCase())) throw new FindError('A subscription id is a UUID such as 5b0b6f2e-0f55-4c3c-9d0b-1f0a0e6f6c11.');
      return { by: 'subscription_id', value: text.toLowerCase() };
    case 'external_id':
      return { by: 'external_id', value: text };
    case 'token':
      if (!TOKEN_PREFIX.test(text.toLowerCase())) throw new FindError('A token prefix is 4 to 200 hex digits (0-9, a-f).');
      return { by: 'token', value: text.toLowerCase() };
    case 'tag': {
      // The key is trimmed (a key with spaces around it is a typing slip), the value is not: tag
      // values are stored as sent, and a stored " gold" must be findable. So the value is read
      // from q as typed, not from its trimmed copy.
      const eq = q.indexOf('=');
      const key = eq < 0 ? '' : q.slice(0, eq).trim();
      if (!key) throw new FindError('A tag is key=value, such as plan=gold.');
      return { by: 'tag', value: key, tagValue: q.slice(eq + 1) };
    }
  }
}

const COLUMNS = 'id, token, external_id, language, subscribed, last_active, created_at';

/** The statement of a search (exported so a test can EXPLAIN it). */
export function findInstallsQuery(appId: string, find: ReturnType<typeof parseFind>): { text: string; values: unknown[] } {
  const params = new Params([appId]);
  let where: string;
  switch (find.by) {
    case 'subscription_id':
      where = `id = ${params.add(find.value)}::uuid`;
      break;
    case 'external_id':
      where = `external_id = ${params.add(find.value)}`;
      break;
    case 'token':
      // Tokens are lowercase hex, so every token starting with the prefix sorts before prefix || 'g'.
      where = `token ~>=~ ${params.add(find.value)} AND token ~<~ ${params.add(`${find.value}g`)}`;
      break;
    case 'tag':
      where = tagCondition({ key: find.value, relation: '=', value: find.tagValue ?? '' }, params);
      break;
  }
  return { text: `SELECT ${COLUMNS} FROM subscriptions WHERE app_id = $1 AND ${where} ORDER BY seq DESC LIMIT ${MAX_FOUND}`, values: params.values };
}

/** Up to MAX_FOUND installs of the app, newest first. */
export async function findInstalls(db: Queryable, appId: string, find: ReturnType<typeof parseFind>): Promise<InstallSummary[]> {
  return (await db.query<InstallSummary>(findInstallsQuery(appId, find))).rows;
}
