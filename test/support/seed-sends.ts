// Sends recorded straight into the database with the counts of a finished delivery, at any time in
// the past, and their chunk rows' failure reasons: the overview's figures over days a test cannot
// wait through.
import type { Pool } from '../../core/store/db.js';

/** A send recorded as if it had started at `at` and finished with these counts, and its chunk rows' reasons. */
export async function seedSend(pool: Pool, appId: string, s: { at: Date; sent?: number; failed?: number; clicked?: number; finished?: boolean; reasons?: (string[] | null)[] }): Promise<number> {
  const res = await pool.query<{ id: string }>(
    `INSERT INTO sends (app_id, target_kind, request, status, total_recipients, sent, failed, clicked, created_at, send_after, finished_at)
     VALUES ($1, 'segment', '{"contents": {"en": "seeded"}}', $2, $3, $4, $5, $6, $7, $7, CASE WHEN $8 THEN $7::timestamptz + interval '1 minute' END) RETURNING id`,
    [appId, s.finished === false ? 'sending' : 'approved', (s.sent ?? 0) + (s.failed ?? 0), s.sent ?? 0, s.failed ?? 0, s.clicked ?? 0, s.at, s.finished !== false],
  );
  const id = Number(res.rows[0].id);
  for (const [chunk, reasons] of (s.reasons ?? []).entries()) {
    await pool.query(
      `INSERT INTO send_chunks (send_id, chunk, planned, state, failed, failed_reasons, finished_at) VALUES ($1, $2, $3, 'done', $3, $4, now())`,
      [id, chunk, reasons?.length ?? 0, reasons],
    );
  }
  return id;
}
