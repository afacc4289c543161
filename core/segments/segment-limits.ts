// The limits of the segment calls (issue 27 point 3), stated once: the body schema (segment-
// schema.ts, and through it the OpenAPI document), the store's checks and their sentences read
// them here. Each segment made through the API is read with its app on every send and planned
// chunk (core/apps/app-store.ts: names with the row, conditions from a cache by version), so the
// number per app and the entries per segment bound that read and the cache as well as one
// request's work.
import { LIMITS } from '../validation/limits.js';

export const SEGMENT_LIMITS = {
  /** A segment's name: as a name a send gives in included_segments / excluded_segments. */
  name: LIMITS.tag,
  /** Segments one app may make through the API (the App resource's and the built-in ones not counted). */
  per_app: 100,
  /** Entries of a segment's `filters`, operators included: as a send's `filters` (one validator). */
  filter_entries: LIMITS.filter_entries,
  /** getSegments' page (OneSignal: "limit … Maximum 300"). */
  page_max: 300,
} as const;
