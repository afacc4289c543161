// Every segment of an app, whichever its source, and the one lookup by name that sends, estimates,
// the planner, the dashboard's sizes and the segment calls all use (issue 27 point 3; docs/
// decisions.md "Issue 27 — segments"). Three sources:
//   - built-in: the segments every app has (core/formats/built-in-segments.ts), read-only;
//   - app_resource: the App resource's spec.segments, the GitOps source, read-only here;
//   - api: made by createSegment or the dashboard (table segments), changed the same ways.
// A name the App resource defines shadows an API segment of that name (one written later is
// refused with a 409, but an App can add the name afterwards): the GitOps source wins, and the API
// segment is listed `shadowed` until it is renamed or deleted.
import { createHash } from 'node:crypto';
import type { AppRecord } from '../apps/app-store.js';
import type { AudienceCondition } from '../send-model/request.js';
import { BUILT_IN_SEGMENTS, isBuiltInSegment, segmentNamed } from '../formats/built-in-segments.js';

export type SegmentSource = 'built_in' | 'app_resource' | 'api';

export interface Segment {
  /** A UUID: the row's for an API segment, derived from the app and name for the others. */
  id: string;
  name: string;
  source: SegmentSource;
  /** Conditions ANDed within a group, groups ORed (a `filters` list's reading); none for built-in ones. */
  groups: AudienceCondition[][];
  /** The conditions as OneSignal's FilterExpression list. */
  filters: Record<string, unknown>[];
  createdAt?: string;
  updatedAt?: string;
  /** An API segment whose name the App resource now also defines: sends reach the App's. */
  shadowed?: boolean;
}

/** A stable UUID for a segment with no row (built-in or App resource): the same on every read. */
function derivedId(appId: string, source: SegmentSource, name: string): string {
  const h = createHash('sha256').update(`${appId}\0${source}\0${name}`).digest('hex');
  // Version 8 (custom) with the RFC 4122 variant, so it is a valid UUID for the client and our checks.
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function ofAppResource(app: AppRecord): Segment[] {
  return app.segments.map((s) => {
    const conditions: AudienceCondition[] = s.conditions.map((c) => ({ field: 'tag', ...c }));
    return {
      id: derivedId(app.id, 'app_resource', s.name),
      name: s.name,
      source: 'app_resource',
      groups: [conditions],
      filters: conditions.map((c) => ({ ...c })),
    };
  });
}

/** Every segment of the app: built-in ones, the App resource's, then the API's (oldest first). */
export function segmentsOf(app: AppRecord): Segment[] {
  const builtIn: Segment[] = BUILT_IN_SEGMENTS.map((name) => ({ id: derivedId(app.id, 'built_in', name), name, source: 'built_in', groups: [], filters: [] }));
  const resource = ofAppResource(app);
  const resourceNames = new Set(resource.map((s) => s.name));
  const api: Segment[] = (app.apiSegments ?? []).map((s) => ({
    id: s.id,
    name: s.name,
    source: 'api',
    groups: s.groups,
    filters: s.filters,
    createdAt: s.created_at,
    updatedAt: s.updated_at,
    ...(resourceNames.has(s.name) ? { shadowed: true } : {}),
  }));
  return [...builtIn, ...resource, ...api];
}

/** The segment a send, estimate or size names (an older built-in name is its segment); undefined when none. */
export function findSegment(app: AppRecord, given: string): Segment | undefined {
  const name = segmentNamed(given);
  return segmentsOf(app).find((s) => s.name === name && !s.shadowed);
}

/** Names of the app's own segments (App resource and API), for the send validators' check at accept. */
export function customSegmentNames(app: AppRecord): string[] {
  return segmentsOf(app).filter((s) => s.source !== 'built_in' && !s.shadowed).map((s) => s.name);
}

/** Whether a name is taken by a built-in segment, including the older names the clients send. */
export function isBuiltInName(name: string): boolean {
  return isBuiltInSegment(segmentNamed(name));
}

/**
 * A send names a segment the app no longer has (removed from the App resource, or deleted through
 * the API after the send was accepted): its audience is unknown, so the send cannot be planned and
 * becomes a draft saying why (core/send-model/transitions.ts `fire_failed`, `plan_failed`).
 */
export class SegmentGoneError extends Error {
  override name = 'SegmentGoneError';
  constructor(readonly segment: string, appName: string) {
    super(`segment ${segment} is not defined for app ${appName}`);
  }
}

/** One line saying who a segment holds, for people ("vip = 1 and language = en, or last_session > 24 h ago"). */
export function describeSegment(segment: Segment): string {
  const one = (c: AudienceCondition): string =>
    c.field === 'tag'
      ? `${c.key} ${c.relation}${c.value !== undefined ? ` ${c.value}` : ''}`
      : c.field === 'language'
        ? `language ${c.relation} ${c.value}`
        : 'hoursAgo' in c
          ? `${c.field} ${c.relation} ${c.hoursAgo} h ago`
          : `${c.field} ${c.relation} ${c.value}`;
  const groups = segment.groups.map((g) => (g.length ? g.map(one).join(' and ') : 'every subscribed install'));
  return groups.length ? groups.join(', or ') : 'every subscribed install';
}
