-- Event destinations (issue 28 point 3, docs/events.md "Retention"): what retention took before a
-- destination had it is counted on the destination's row, never dropped silently. Records are
-- counted exactly; events are the number those records held (every kind, less what the
-- destination already had of a record it was inside).
ALTER TABLE event_destinations
  ADD COLUMN dropped_records bigint NOT NULL DEFAULT 0,
  ADD COLUMN dropped_events  bigint NOT NULL DEFAULT 0,
  ADD COLUMN last_dropped_at timestamptz;
