-- How a Live Activity update went out over its broadcast channel (issue 29): the send's
-- `la_channel` is {"status": "accepted"|"failed", "reason"?: Apple's reason} (NULL: no channel,
-- per-token only), shown by the report and the list call; the per-token part is the send's
-- own counters.
ALTER TABLE sends ADD COLUMN la_channel jsonb;

-- The latest channel management outcome of each App using broadcast channels, which the App
-- controller turns into the BroadcastChannelsReady condition: failing since `failed_at` at
-- `stage` (create, broadcast, delete) with `reason`, until a later success clears it.
CREATE TABLE live_activity_channel_health (
  app_id       uuid PRIMARY KEY REFERENCES apps (id) ON DELETE CASCADE,
  failing      boolean NOT NULL,
  stage        text NOT NULL,
  reason       text NOT NULL,
  failures     bigint NOT NULL DEFAULT 0,
  failed_at    timestamptz,
  recovered_at timestamptz
);
