-- `delayed_option: timezone` delivery (DECISIONS "Time"): a timezone send is planned when it
-- fires, with its chunks grouped by device time zone. Each such chunk records the zone it covers
-- (the subscriptions' `timezone` value as stored; NULL = devices with no zone) and the instant its
-- devices' clocks show the send's time of day. A periodic duty releases (publishes the job of)
-- each chunk once that instant has passed; `released_at` says it has been. A list send's ids go
-- to the chunk of the zone of each id's first subscribed install (`entries`), so an id is counted
-- once even when its installs are in several zones.
ALTER TABLE send_chunks
  ADD COLUMN by_zone      boolean NOT NULL DEFAULT false, -- the chunk's devices are those of `timezone` only
  ADD COLUMN timezone     text,                           -- the zone as stored on the devices (NULL: none)
  ADD COLUMN not_before   timestamptz,                    -- not sent before this instant (NULL: at once)
  ADD COLUMN entries      text[],                         -- list sends: the given ids this chunk counts for
  ADD COLUMN released_at  timestamptz;                    -- when its job went to the outbox

-- The release duty's scan: planned chunks waiting for their instant.
CREATE INDEX send_chunks_waiting ON send_chunks (not_before) WHERE released_at IS NULL AND not_before IS NOT NULL AND state = 'planned';
