-- Per-platform counts (issue 39 point 6): OneSignal's platform_delivery_stats carry `ios` and
-- `android`. The Android share of a send's counters is kept beside them; the iOS share is the
-- total less it, so rows from before Android (every device iOS) need no backfill. A chunk row keeps
-- its own share (recordChunk moves the send's counters from it once). ADD COLUMN with a constant
-- default rewrites no table (PostgreSQL 11+).
ALTER TABLE sends
  ADD COLUMN sent_android    integer NOT NULL DEFAULT 0,
  ADD COLUMN failed_android  integer NOT NULL DEFAULT 0,
  ADD COLUMN clicked_android integer NOT NULL DEFAULT 0;
ALTER TABLE send_chunks
  ADD COLUMN sent_android    integer NOT NULL DEFAULT 0,
  ADD COLUMN failed_android  integer NOT NULL DEFAULT 0;
