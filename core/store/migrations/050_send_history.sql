-- A send's history (issue 30 point 3; docs/delivery.md "History"): who Apple accepted it for and
-- who it failed for, kept in the chunk row that already records the chunk's counts, so it lives
-- and goes with that row (HERALD_CHUNK_RETENTION_DAYS). Each device is its install's `seq` (8
-- bytes, never reused; ~3.3 bytes once PostgreSQL compresses 500 of them): getNotificationHistory
-- and exportEvents join them to `subscriptions` when the file is read, so an install erased since
-- (deleteUser, deleteSubscription) resolves to nothing and is in no file, without rewriting any
-- chunk. NULL: a chunk recorded before this migration, or a Live Activity push.
ALTER TABLE send_chunks
  ADD COLUMN sent_seqs          bigint[],  -- installs Apple accepted the push for
  ADD COLUMN failed_seqs        bigint[],  -- installs it failed for (Apple's refusal, or exhausted)
  ADD COLUMN failed_reasons     text[],    -- the reason of each, in failed_seqs' order
  ADD COLUMN unsubscribed_seqs  bigint[];  -- those of failed_seqs whose token Apple refused for good

-- The one-time links (migration 029) also serve a send's history and its events: `kind` says
-- which file a link makes, `send_id` of which send (deleted with it).
ALTER TABLE export_links
  ADD COLUMN kind     text NOT NULL DEFAULT 'subscriptions' CHECK (kind IN ('subscriptions', 'history_sent', 'history_clicked', 'events')),
  ADD COLUMN send_id  bigint REFERENCES sends (id) ON DELETE CASCADE;
