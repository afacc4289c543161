-- Retention of finished sends (core/send/retention.ts): their chunk rows go after
-- HERALD_CHUNK_RETENTION_DAYS (chunks_pruned_at records it, so a pruned send leaves the first
-- index), the send itself after HERALD_FINISHED_SEND_RETENTION_DAYS. Partial indexes: a running
-- send has no entry, so accepting a send writes none.
ALTER TABLE sends ADD COLUMN chunks_pruned_at timestamptz;
CREATE INDEX sends_chunks_to_prune ON sends (finished_at) WHERE finished_at IS NOT NULL AND chunks_pruned_at IS NULL;
CREATE INDEX sends_finished ON sends (finished_at) WHERE finished_at IS NOT NULL;
