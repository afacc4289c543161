// The one-time links of exportSubscriptions (migration 029), getNotificationHistory and
// exportEvents (migration 050: `kind` and `send_id`). A link is 32 random bytes
// (base64url, 43 characters): unguessable, and kept only as its SHA-256, so the table never holds
// a usable link. It serves one download within LINK_TTL_MS: the download deletes the row before
// the file starts, so a second use finds nothing (404); an expired link is a 410.
import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../store/db.js';
import type { ExportRequest } from './export-schema.js';

/** How long a link serves its one download (OneSignal keeps its file 3 days; ours is made on download). */
export const LINK_TTL_MS = 60 * 60 * 1000;

/** A link's token as the URL carries it. */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** Which file a link makes: the app's installs, a send's history (sent or clicked) or its events. */
export type LinkKind = 'subscriptions' | 'history_sent' | 'history_clicked' | 'events';

export interface ExportLink {
  appId: string;
  kind: LinkKind;
  /** The send of a history or events link (null for the installs'). */
  sendId: number | null;
  segmentName: string | null;
  lastActiveSince: Date | null;
  extraFields: string[];
}

/** What a link is made for: an exportSubscriptions body, or a send's file. */
export type LinkRequest = { kind: 'subscriptions'; request: ExportRequest } | { kind: Exclude<LinkKind, 'subscriptions'>; sendId: number };

const digest = (token: string) => createHash('sha256').update(token).digest();

/** Makes a link for the app's file; returns its token (never stored). Prunes expired links. */
export async function createLink(db: Queryable, appId: string, what: LinkRequest, now: Date): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + LINK_TTL_MS);
  const request: ExportRequest = what.kind === 'subscriptions' ? what.request : {};
  await db.query('DELETE FROM export_links WHERE expires_at < $1', [now]);
  await db.query(
    `INSERT INTO export_links (token_sha256, app_id, kind, send_id, segment_name, last_active_since, extra_fields, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, to_timestamp($6::double precision), $7, $8, $9)`,
    [digest(token), appId, what.kind, what.kind === 'subscriptions' ? null : what.sendId, request.segment_name ?? null, request.last_active_since ?? null, request.extra_fields ?? [], now, expiresAt],
  );
  return { token, expiresAt };
}

export type TakenLink = { kind: 'ok'; link: ExportLink } | { kind: 'expired' } | { kind: 'unknown' };

/** Uses a link up: deletes it and answers what it asked for, or that it expired or never was (or was used). */
export async function takeLink(db: Queryable, token: string, now: Date): Promise<TakenLink> {
  if (!TOKEN_PATTERN.test(token)) return { kind: 'unknown' };
  const res = await db.query<{ app_id: string; kind: LinkKind; send_id: string | null; segment_name: string | null; last_active_since: Date | null; extra_fields: string[]; expires_at: Date }>(
    'DELETE FROM export_links WHERE token_sha256 = $1 RETURNING app_id, kind, send_id, segment_name, last_active_since, extra_fields, expires_at',
    [digest(token)],
  );
  const row = res.rows[0];
  if (!row) return { kind: 'unknown' };
  if (row.expires_at <= now) return { kind: 'expired' };
  const link: ExportLink = {
    appId: row.app_id,
    kind: row.kind,
    sendId: row.send_id === null ? null : Number(row.send_id),
    segmentName: row.segment_name,
    lastActiveSince: row.last_active_since,
    extraFields: row.extra_fields,
  };
  return { kind: 'ok', link };
}

/** Whether a link would serve now, without using it up (a HEAD request). */
export async function peekLink(db: Queryable, token: string, now: Date): Promise<'ok' | 'expired' | 'unknown'> {
  if (!TOKEN_PATTERN.test(token)) return 'unknown';
  const res = await db.query<{ expires_at: Date }>('SELECT expires_at FROM export_links WHERE token_sha256 = $1', [digest(token)]);
  const row = res.rows[0];
  return !row ? 'unknown' : row.expires_at <= now ? 'expired' : 'ok';
}
