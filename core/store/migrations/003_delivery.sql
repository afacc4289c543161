-- Delivery (issue "Delivery"): the chunk plan of a send and each chunk's recorded outcome.
-- A chunk row is written by the planner ('planned'), claimed by one sender at a time ('working',
-- with a lease), and closed exactly once ('done' with its counts, or 'left_out' when the send
-- stopped before it started). The close is the conditional UPDATE that decides whether the
-- send's counters move, so a redelivered chunk is never counted twice.
CREATE TABLE send_chunks (
  send_id      bigint NOT NULL REFERENCES sends (id) ON DELETE CASCADE,
  chunk        integer NOT NULL,                 -- 0-based, in keyset order
  from_seq     bigint,                           -- exclusive lower seq bound (segment and tag sends)
  to_seq       bigint,                           -- inclusive upper seq bound
  planned      integer NOT NULL,                 -- devices (list sends: ids) planned in this chunk
  state        text NOT NULL DEFAULT 'planned' CHECK (state IN ('planned', 'working', 'done', 'left_out')),
  lease_until  timestamptz,                      -- a 'working' chunk is someone's until then
  claims       integer NOT NULL DEFAULT 0,       -- how many times a sender started it
  sent         integer NOT NULL DEFAULT 0,
  failed       integer NOT NULL DEFAULT 0,
  skipped      integer NOT NULL DEFAULT 0,
  left_out     integer NOT NULL DEFAULT 0,
  finished_at  timestamptz,
  PRIMARY KEY (send_id, chunk)
);

-- Why a send stopped early (NULL: it runs to the end): 'paused' (overdue invoice) or
-- 'credentials' (APNs refused the app's key or certificate).
ALTER TABLE sends ADD COLUMN stopped text CHECK (stopped IN ('paused', 'credentials'));
