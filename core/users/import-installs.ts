// Bulk load of installs from NDJSON (`herald import`): one object a line with the fields of the
// SDK call plus an optional `id`. Rows stream through COPY into a temporary table, then one
// INSERT … ON CONFLICT merges them, so a re-import updates instead of failing on duplicates.
import { checkUntrustedJson } from '../validation/untrusted-json.js';
import { ValidationError } from '../errors.js';
import { randomUUID } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';
import type { Pool, PoolClient } from '../store/db.js';
import { mergeInUserOrder, syncUsersOfImported } from './imported-installs.js';
import { installTokenRule, isInstallToken, PLATFORMS, storedToken, type Platform } from '../formats/install-type.js';
import { isUuid } from '../formats/uuid.js';
import { checkInstallTimeZone, INSTALL_SCHEMAS, INSTALL_SENTENCES } from '../validation/subscription-schema.js';
import { checkValue } from '../validation/checker.js';

export interface ImportProgress {
  lines: number;
  accepted: number;
  rejected: number;
  /** 'reading' while rows stream in, 'merging' while they join the table, 'done' at the end. */
  phase: 'reading' | 'merging' | 'done';
}

export interface ImportResult extends ImportProgress {
  /** First few rejected lines with the reason, for the operator to fix. */
  problems: string[];
}


/** COPY text format: backslash, tab, newline and carriage return escaped; \N is NULL. */
function copyField(value: string | null | undefined): string {
  if (value === null || value === undefined) return '\\N';
  return value.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

/** One NDJSON line → one COPY row, or the reason it is refused. */
export function toCopyRow(line: string): { row: string; platform: Platform } | { problem: string } {
  let obj: Record<string, unknown>;
  try {
    obj = JSON.parse(line);
  } catch {
    return { problem: 'not JSON' };
  }
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) return { problem: 'not a JSON object' };
  try {
    checkUntrustedJson(obj);
  } catch (error) {
    if (error instanceof ValidationError) return { problem: error.messages[0] };
    throw error;
  }
  // `platform`: ios (the default, an APNs token) or android (an FCM token, kept as given).
  const platform = (obj.platform ?? 'ios') as Platform;
  if (!PLATFORMS.includes(platform)) return { problem: 'platform must be ios or android' };
  if (!isInstallToken(platform, obj.token)) return { problem: installTokenRule(platform, 'token') };
  if (obj.id !== undefined && (typeof obj.id !== 'string' || !isUuid(obj.id))) return { problem: 'id must be a UUID' };
  // The register call's own rules and sentences for the rest (core/validation/subscription-schema.ts);
  // the first problem, without its period (the operator reads `line N: …`).
  const checked = checkValue(INSTALL_SCHEMAS[platform].patch, obj, INSTALL_SENTENCES[platform]);
  if (!checked.ok) return { problem: checked.issues[0]!.message.replace(/\.$/, '') };
  const zoneProblem = checkInstallTimeZone(obj.timezone);
  if (zoneProblem) return { problem: zoneProblem };
  // Values as text; a null one names no tag (the register call's null removes one).
  const tags = Object.fromEntries(Object.entries((obj.tags as Record<string, unknown>) ?? {}).filter(([, v]) => v !== null).map(([k, v]) => [k, String(v)]));
  const fields = [
    (obj.id as string | undefined)?.toLowerCase() ?? randomUUID(),
    storedToken(platform, obj.token),
    obj.external_id as string | null,
    obj.language as string | null,
    obj.timezone as string | null,
    JSON.stringify(tags),
    obj.subscribed === false ? 'f' : 't',
    platform,
  ];
  return { row: fields.map(copyField).join('\t') + '\n', platform };
}

export async function importSubscriptions(
  pool: Pool,
  appId: string,
  input: Readable,
  onProgress?: (p: ImportProgress) => void,
): Promise<ImportResult> {
  const result: ImportResult = { lines: 0, accepted: 0, rejected: 0, phase: 'reading', problems: [] };
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(`CREATE TEMP TABLE import_rows (id uuid, token text, external_id text, language text,
      timezone text, tags jsonb, subscribed boolean, platform text) ON COMMIT DROP`);
    const platformsSeen = await copyRows(client, input, result, onProgress);
    result.phase = 'merging';
    onProgress?.({ ...result });
    const clashes = await mergeInUserOrder(client, appId, () => mergeRows(client, appId, platformsSeen));
    if (clashes > 0) {
      result.accepted -= clashes;
      result.rejected += clashes;
      result.problems.push(`${clashes} token${clashes === 1 ? '' : 's'} registered under the other platform left unchanged (delete those installs first to import them as the platform given)`);
    }
    await syncUsersOfImported(client, appId);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
  // Fresh statistics and visibility map, so audience counts right after a bulk load use
  // index-only scans instead of reading a million heap rows.
  await pool.query('VACUUM (ANALYZE) subscriptions');
  result.phase = 'done';
  onProgress?.({ ...result });
  return result;
}

/**
 * Streams the file's lines into import_rows through COPY, counting them in `result`; returns the
 * platforms its rows name. Lines are split from raw chunks and each chunk's rows go to COPY as one
 * string: per-line stream objects (readline's async iterator) cost more than parsing the JSON itself.
 */
async function copyRows(client: PoolClient, input: Readable, result: ImportResult, onProgress?: (p: ImportProgress) => void): Promise<Set<Platform>> {
  let partial = '';
  const platformsSeen = new Set<Platform>();
  const take = (line: string, out: string[]) => {
    if (!line.trim()) return;
    result.lines++;
    const row = toCopyRow(line);
    if ('row' in row) {
      out.push(row.row);
      platformsSeen.add(row.platform);
      result.accepted++;
      if (result.accepted % 100_000 === 0) onProgress?.({ ...result });
      return;
    }
    result.rejected++;
    if (result.problems.length < 20) result.problems.push(`line ${result.lines}: ${row.problem}`);
  };
  const rows = new Transform({
    decodeStrings: false,
    transform(chunk: Buffer | string, _enc, done) {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      const out: string[] = [];
      for (const line of lines) take(line, out);
      done(null, out.length ? out.join('') : undefined);
    },
    flush(done) {
      const out: string[] = [];
      take(partial, out);
      done(null, out.length ? out.join('') : undefined);
    },
  });
  input.setEncoding('utf8');
  await pipeline(input, rows, client.query(copyFrom('COPY import_rows FROM STDIN')));
  return platformsSeen;
}

/**
 * Merges import_rows into the app's installs; the last line for a token wins, as if the SDK had
 * called in file order. Returns how many of the file's tokens were left alone as the other
 * platform's, for the caller to count once: mergeInUserOrder may undo the merge and run it again.
 */
async function mergeRows(client: PoolClient, appId: string, platformsSeen: Set<Platform>): Promise<number> {
  // A token the app has under the other platform is left as it is, as the register call refuses
  // it (409), and counted; looked for only when the file or the app has Android installs, so an
  // iOS-only import costs what it did.
  const clashes = await countClashes(client, appId, platformsSeen);
  await client.query(
    `INSERT INTO subscriptions (id, app_id, token, external_id, language, timezone, tags, subscribed, last_active, platform)
     SELECT DISTINCT ON (token) id, $1, token, external_id, language, timezone, tags, subscribed, now(), platform
       FROM import_rows ORDER BY token, ctid DESC
     ON CONFLICT (app_id, token) DO UPDATE SET external_id = EXCLUDED.external_id, language = EXCLUDED.language,
       timezone = EXCLUDED.timezone, tags = EXCLUDED.tags, subscribed = EXCLUDED.subscribed, updated_at = now()
     WHERE subscriptions.platform = EXCLUDED.platform`,
    [appId],
  );
  return clashes;
}

/**
 * How many of the file's tokens (the last line of each) the app has under the other platform.
 * None can when every line and every install of the app are iOS: then no join is made (an
 * index-only look at the app's installs, subscriptions_audience carrying the platform).
 */
async function countClashes(client: PoolClient, appId: string, seen: Set<Platform>): Promise<number> {
  if (!seen.has('android')) {
    const any = await client.query(`SELECT EXISTS (SELECT 1 FROM subscriptions WHERE app_id = $1 AND platform = 'android') AS any`, [appId]);
    if (!any.rows[0].any) return 0;
  }
  const res = await client.query<{ n: number }>(
    `SELECT count(*)::int AS n
       FROM (SELECT DISTINCT ON (token) token, platform FROM import_rows ORDER BY token, ctid DESC) l
       JOIN subscriptions s ON s.app_id = $1 AND s.token = l.token AND s.platform <> l.platform`,
    [appId],
  );
  return res.rows[0].n;
}
