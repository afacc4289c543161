-- One owner of delivery state (issue 10): PostgreSQL alone says which chunk is whose. A sender
-- claims the next chunk with FOR UPDATE SKIP LOCKED (send_chunks_open), least recently served
-- send first (last_claim_at: fairness between sends and apps), and a chunk's `lease_until` now
-- means "nobody takes it before": a held chunk's lease, or a throttled chunk handed back until its
-- turn. JetStream no longer carries work jobs; a core NATS message only wakes idle senders.
ALTER TABLE sends
  ADD COLUMN last_claim_at timestamptz,  -- when a sender last took one of its chunks (NULL: never)
  ADD COLUMN stop_detail   text;         -- why it stopped, for its final message (Apple's reason)

-- The claim's scan: chunks not yet recorded, per send in chunk order.
CREATE INDEX send_chunks_open ON send_chunks (send_id, chunk) WHERE state IN ('planned', 'working');
-- The planner's scan: accepted sends whose chunks are not recorded yet.
CREATE INDEX sends_unplanned ON sends (id) WHERE chunks_total IS NULL AND status IN ('queued', 'sending');
