// The export's file, made when its link is fetched: one COPY … TO STDOUT (CSV) of the app's
// installs (or of a send's history or events: send-files.ts), piped through gzip to the caller with backpressure (pg-copy-streams reads the
// connection only as fast as the caller takes the file), so memory stays flat whatever the app's
// size. One statement, so one snapshot: an install erased before the download started is not in
// it. COPY takes no bind parameters, so every value (the app, the time, a segment's tag keys and
// values) reaches the statement as a transaction-local setting read by current_setting(), never
// as text in the SQL.
import { pipeline } from 'node:stream/promises';
import type { Writable } from 'node:stream';
import { constants, createGzip } from 'node:zlib';
import { to as copyTo } from 'pg-copy-streams';
import type { AppRecord } from '../apps/app-store.js';
import { audienceCondition, Params } from '../audience/filter.js';
import { findSegment } from '../audience/segments.js';
import type { Pool } from '../store/db.js';
import type { ExportLink } from './export-links.js';
import { selectList } from './csv-columns.js';
import { sendFileQuery } from './send-files.js';

/** The longest an export's statement may run (a reader that stops taking the file is cut sooner: STALL_MS). */
export const EXPORT_STATEMENT_MS = 60 * 60 * 1000;
/** A download whose reader takes nothing for this long is cut (its connection released). */
export const STALL_MS = 60_000;

/** Whether the app has the segment (built in, the App resource's or the API's: the one lookup sends use). */
export const segmentKnown = (app: AppRecord, name: string) => findSegment(app, name) !== undefined;

/** The SELECT of an installs export and its values, in order ($1, $2, …). */
export function exportQuery(app: AppRecord, link: ExportLink): { sql: string; values: string[] } {
  const params = new Params([app.id]);
  const where = ['s.app_id = $1::uuid'];
  if (link.lastActiveSince) where.push(`s.last_active > ${params.add(link.lastActiveSince.toISOString())}::timestamptz`);
  // A segment's export holds its subscribed installs, as a send to it would (OneSignal's default).
  if (link.segmentName !== null) where.push(`s.subscribed AND ${audienceCondition(app, { kind: 'segment', segment: link.segmentName }, params)}`);
  const sql = `SELECT ${selectList(link.extraFields)} FROM subscriptions s WHERE ${where.join(' AND ')} ORDER BY s.seq`;
  return { sql, values: params.values.map(String) };
}

/** The SELECT a link's file is made of: the installs, or a send's history or events. */
export function linkQuery(app: AppRecord, link: ExportLink): { sql: string; values: string[] } {
  return link.kind === 'subscriptions' ? exportQuery(app, link) : sendFileQuery({ ...link, kind: link.kind });
}

/**
 * Writes the gzip CSV of the link's file to `out`. Rejects when the statement fails or `out`
 * closes early; the connection is then destroyed, not returned, so PostgreSQL stops the COPY.
 */
export async function streamExport(pool: Pool, app: AppRecord, link: ExportLink, out: Writable): Promise<void> {
  const query = linkQuery(app, link);
  // The queries are written with positional parameters (core/audience's one builder for the
  // installs); each becomes a setting of this transaction.
  const sql = query.sql.replace(/\$(\d+)/g, (_, n: string) => `current_setting('herald.export_p${n}')`);
  const values = query.values;
  const client = await pool.connect();
  let failed = false;
  try {
    await client.query('BEGIN READ ONLY');
    await client.query(`SET LOCAL statement_timeout = ${EXPORT_STATEMENT_MS}`);
    await client.query(`SELECT ${values.map((_, i) => `set_config('herald.export_p${i + 1}', $${i + 1}, true)`).join(', ')}`, values);
    // Level 1: the CPU per byte matters more on a shared node than a smaller file.
    await pipeline(client.query(copyTo(`COPY (${sql}) TO STDOUT WITH (FORMAT csv, HEADER true)`)), createGzip({ level: constants.Z_BEST_SPEED }), out);
    await client.query('COMMIT');
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    client.release(failed);
  }
}
