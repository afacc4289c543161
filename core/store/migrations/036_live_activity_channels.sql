-- The broadcast channel of each Live Activity (issue 29, docs/live-activities.md "Broadcast
-- channels"): made with Apple's channel management API when an App with
-- spec.liveActivities.broadcast first starts the activity, in the App's environment (a channel
-- belongs to one APNs environment), and reused for every start and update of that activity id.
CREATE TABLE live_activity_channels (
  app_id       uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  activity     text NOT NULL,                 -- the activity_id of the official client's calls
  environment  text NOT NULL,                 -- 'production' or 'sandbox': where the channel lives
  channel_id   text NOT NULL,                 -- Apple's apns-channel-id
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (app_id, activity, environment)
);
