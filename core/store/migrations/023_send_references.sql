-- Deleting a send (retention, core/send/retention.ts) cascades to every row that references it,
-- and PostgreSQL finds those rows by the referencing column: without an index, each deleted send
-- is a sequential scan of the table. opens and send_chunks have theirs (primary keys starting with
-- send_id); idempotency_keys had none. Partial: a record whose request made no send holds none.
CREATE INDEX idempotency_keys_send ON idempotency_keys (send_id) WHERE send_id IS NOT NULL;
