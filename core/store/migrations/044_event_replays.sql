-- `herald events replay` (issue 28 point 3, docs/events.md "Replay"): a replay re-delivers an app's
-- recorded events of a time range to one destination, with the same event ids, without moving the
-- destination's own place. Each is a row the dispatcher's lanes serve like a destination (a lease,
-- back-off, its own place in the range), until its place passes the range's last record.
CREATE TABLE event_replays (
  id                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  app_id             uuid NOT NULL,
  destination        text NOT NULL,
  from_time          timestamptz NOT NULL,       -- the range asked for, as given
  to_time            timestamptz NOT NULL,
  first_id           bigint NOT NULL,            -- the range's records: first_id..last_id
  last_id            bigint NOT NULL,
  records            int NOT NULL,               -- records in the range when it was asked (progress)
  delivered_through  bigint NOT NULL,            -- its place, as event_destinations'
  delivered_offset   int NOT NULL DEFAULT 0,
  events_delivered   bigint NOT NULL DEFAULT 0,
  attempts           int NOT NULL DEFAULT 0,
  retry_at           timestamptz,
  lease_until        timestamptz,
  last_error         text,
  failing_since      timestamptz,
  created_at         timestamptz NOT NULL DEFAULT now(),
  finished_at        timestamptz,
  FOREIGN KEY (app_id, destination) REFERENCES event_destinations (app_id, name) ON DELETE CASCADE
);
-- One replay at a time per destination: a second is refused while the first runs.
CREATE UNIQUE INDEX event_replays_running ON event_replays (app_id, destination) WHERE finished_at IS NULL;
-- The dispatcher's claim reads only the running ones.
CREATE INDEX event_replays_due ON event_replays (lease_until) WHERE finished_at IS NULL;
