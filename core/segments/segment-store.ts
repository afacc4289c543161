// The segments an app makes through the API (table segments, migration 028): create, change,
// delete. Reading goes through the app record (core/apps/app-store.ts loads them with the app) and
// core/audience/segments.ts, the one list every reader uses. The rules of a write, each a clear
// answer: the App resource's segments are its GitOps source (409 naming the App), a name is the
// app's once (409 naming the clash), built-in names are every app's (409), at most
// SEGMENT_LIMITS.per_app per app (422). Writes of one app run one at a time (an advisory lock),
// so the count and the name checks hold under concurrent calls.
import { randomUUID } from 'node:crypto';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { getApp, type AppRecord } from '../apps/app-store.js';
import { findSegment, isBuiltInName, segmentsOf, type Segment } from '../audience/segments.js';
import type { AudienceCondition } from '../send-model/request.js';
import { inTransaction, type Pool, type PoolClient, type Queryable } from '../store/db.js';
import { SEGMENT_LIMITS } from './segment-limits.js';

export const NO_SEGMENT = 'No such segment.';

const UNIQUE_VIOLATION = '23505';

export interface SegmentWrite {
  id?: string;
  name: string;
  filters?: Record<string, unknown>[];
  groups?: AudienceCondition[][];
}

/** The app's segment of this id, any source (404 when the app has none: another app's id included). */
export function segmentById(app: AppRecord, id: string): Segment {
  const segment = segmentsOf(app).find((s) => s.id === id.toLowerCase());
  if (!segment) throw new NotFoundError(NO_SEGMENT);
  return segment;
}

/** 409 unless the segment is one the API may change. */
export function refuseReadOnly(app: AppRecord, segment: Segment, doing: 'changed' | 'deleted'): void {
  if (segment.source === 'app_resource') {
    throw new ConflictError(`Segment "${segment.name}" comes from the App resource ${app.name} (spec.segments), its GitOps source: it is read-only here and is ${doing} by changing that App.`);
  }
  if (segment.source === 'built_in') throw new ConflictError(`Segment "${segment.name}" is built in: every app has it, and it cannot be ${doing}.`);
}

/** 409 when `name` is taken by a segment other than `self`. */
function refuseTakenName(app: AppRecord, name: string, self?: string): void {
  if (isBuiltInName(name)) throw new ConflictError(`Segment name "${name}" is a built-in segment's; choose another name.`);
  const resource = app.segments.find((s) => s.name === name);
  if (resource) throw new ConflictError(`Segment name "${name}" is defined by the App resource ${app.name} (spec.segments); choose another name.`);
  const other = findSegment(app, name) ?? (app.apiSegments ?? []).find((s) => s.name === name);
  if (other && other.id !== self) throw new ConflictError(`Segment name "${name}" is taken by segment ${other.id} of this app; choose another name.`);
}

/**
 * A write of the app's segments (the API's calls and the dashboard's forms alike): in one
 * transaction, the app's segment writes one at a time (an advisory lock), the app and its segments
 * read after the lock, so the count and the names `work` checks are the truth.
 */
export function writeSegments<T>(pool: Pool, appId: string, work: (db: PoolClient, app: AppRecord) => Promise<T>): Promise<T> {
  return inTransaction(pool, async (db) => {
    await db.query(`SELECT pg_advisory_xact_lock(hashtext('herald-segments'), hashtext($1))`, [appId]);
    const app = await getApp(db, appId);
    if (!app || app.disabled) throw new NotFoundError('No such app.');
    return work(db, app);
  });
}

/** Makes an API segment, within writeSegments. Returns its id. */
export async function createSegment(db: Queryable, app: AppRecord, write: Required<Pick<SegmentWrite, 'name' | 'filters' | 'groups'>> & { id?: string }): Promise<string> {
  refuseTakenName(app, write.name);
  if ((app.apiSegments ?? []).length >= SEGMENT_LIMITS.per_app) {
    throw new ValidationError({ field: 'name', message: `This app has ${SEGMENT_LIMITS.per_app} segments made through the API, the most it may have; delete one to make another.` });
  }
  const id = write.id ?? randomUUID();
  try {
    await db.query('INSERT INTO segments (id, app_id, name, filters, groups) VALUES ($1, $2, $3, $4, $5)', [id, app.id, write.name, JSON.stringify(write.filters), JSON.stringify(write.groups)]);
  } catch (e) {
    // Only the id can clash here (the name was checked under the lock); it may be another app's.
    if ((e as { code?: string }).code === UNIQUE_VIOLATION) throw new ConflictError(`A segment with id ${id} exists; leave id out to have one made.`);
    throw e;
  }
  return id;
}

/** Changes an API segment's name and, when given, its filters. */
export async function updateSegment(db: Queryable, app: AppRecord, segment: Segment, write: SegmentWrite): Promise<void> {
  refuseReadOnly(app, segment, 'changed');
  if (write.name !== segment.name) refuseTakenName(app, write.name, segment.id);
  await db.query(
    `UPDATE segments SET name = $3, filters = coalesce($4::jsonb, filters), groups = coalesce($5::jsonb, groups), updated_at = now()
      WHERE app_id = $1 AND id = $2`,
    [app.id, segment.id, write.name, write.filters ? JSON.stringify(write.filters) : null, write.groups ? JSON.stringify(write.groups) : null],
  );
}

/** Deletes an API segment. A send accepted before that still names it: it ends a draft saying so when planned. */
export async function deleteSegment(db: Queryable, app: AppRecord, segment: Segment): Promise<void> {
  refuseReadOnly(app, segment, 'deleted');
  await db.query('DELETE FROM segments WHERE app_id = $1 AND id = $2', [app.id, segment.id]);
}
