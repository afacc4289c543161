-- The life of a Live Activity's broadcast channel (issue 29, docs/live-activities.md "Broadcast
-- channels"): when it was last named by a start (a push-to-start, or the app-facing channel call
-- of an app that starts activities itself), when an end was accepted, and when it is to be
-- deleted at Apple. Apple allows 10,000 channels per app: a channel goes once its activities can
-- no longer be on a device (after the end's dismissal, at most 4 hours later; or 12 hours after
-- its last start, when ActivityKit has ended and removed every activity that joined it).
ALTER TABLE live_activity_channels
  ADD COLUMN started_at   timestamptz NOT NULL DEFAULT now(),
  ADD COLUMN ended_at     timestamptz,
  ADD COLUMN delete_after timestamptz;

-- The sweep's two ways in: due after an end, and aged out after the last start.
CREATE INDEX live_activity_channels_delete_after ON live_activity_channels (delete_after) WHERE delete_after IS NOT NULL;
CREATE INDEX live_activity_channels_started_at ON live_activity_channels (started_at);

-- Channels no activity uses any more, until Apple confirms their deletion: they still count
-- against Apple's quota, and a failed DELETE (Apple unreachable, a 5xx) is tried again later.
CREATE TABLE live_activity_channels_retired (
  app_id          uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  environment     text NOT NULL,
  channel_id      text NOT NULL,
  retired_at      timestamptz NOT NULL DEFAULT now(),
  attempts        int NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_reason     text,
  PRIMARY KEY (app_id, environment, channel_id)
);
CREATE INDEX live_activity_channels_retired_next ON live_activity_channels_retired (next_attempt_at);
