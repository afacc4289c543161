// The latest sends an install was in, for the dashboard's install page. Herald keeps no row per
// device and send (a send's chunks are keyset ranges), so membership is recomputed: an install was
// in a segment, tag or filters send when its seq is within the send's snapshot mark and it matches
// the send's condition today (core/audience's own, so the answer is the planner's); in a list send
// when its id or external id is in the list. Tags changed since the send may make this differ from
// what happened: the page says so.
import type { AppRecord } from '../apps/app-store.js';
import { requestJsonSql, type SendTarget } from '../send-model/request.js';
import { statusInSql } from '../send-model/states.js';
import type { Queryable } from '../store/db.js';
import { audienceCondition, Params } from './filter.js';
import { isAliasMember } from './alias-target.js';
import { findSegment } from './segments.js';
import { isListTarget, segmentsNamed, type ListKind } from './target-kinds.js';

/** How many of the app's latest sends are checked (each check is one indexed lookup). */
export const SENDS_CHECKED = 25;

/** A started send's target and the audience's last seq: enough to say whether an install was in it. */
interface SentTargetRow {
  id: string;
  target: SendTarget;
  audience_max_seq: string | null;
}

const known = (app: AppRecord) => (name: string) => findSegment(app, name) !== undefined;

/**
 * Whether a list send named the install: by its id, its external id, or (include_aliases of
 * another label) its user's alias. The install page and the opens of a send (core/send/opens.ts).
 */
export async function isListMember(
  db: Queryable,
  appId: string,
  target: Extract<SendTarget, { kind: ListKind }>,
  install: { id: string; external_id: string | null },
): Promise<boolean> {
  if (target.kind === 'aliases') return isAliasMember(db, appId, target, install.id);
  const key = target.kind === 'subscription_ids' ? install.id : install.external_id;
  return key !== null && target.ids.includes(key);
}

/** Ids of the app's latest SENDS_CHECKED started sends (newest first) this install was in; a draft was never sent, so it had no one in it. */
export async function sendsOfInstall(db: Queryable, app: AppRecord, install: { id: string; seq: number; external_id: string | null }): Promise<number[]> {
  const sends = await db.query<SentTargetRow>(
    `SELECT id, ${requestJsonSql('request', 'target')} AS target, audience_max_seq FROM sends
      WHERE app_id = $1 AND kind = 'push' AND ${statusInSql('status', 'sent')} ORDER BY id DESC LIMIT ${SENDS_CHECKED}`,
    [app.id],
  );
  const found: number[] = [];
  for (const s of sends.rows) {
    const t = s.target;
    if (isListTarget(t)) {
      if (await isListMember(db, app.id, t, install)) found.push(Number(s.id));
      continue;
    }
    if (s.audience_max_seq === null || install.seq > Number(s.audience_max_seq)) continue;
    // A custom segment since removed (from the App or through the API): its condition is unknown now.
    const named = segmentsNamed(t);
    if (!named.every(known(app))) continue;
    const params = new Params([app.id, install.id]);
    const condition = audienceCondition(app, t, params);
    const hit = await db.query(`SELECT 1 FROM subscriptions WHERE app_id = $1 AND id = $2::uuid AND ${condition}`, params.values);
    if (hit.rowCount) found.push(Number(s.id));
  }
  return found;
}
