-- Live Activity tokens an install registered (docs/live-activities.md), as OneSignal's iOS SDK
-- sends them: an update token per activity it shows (kind 'update', activity = the activity id)
-- and a push-to-start token per activity type (kind 'start', activity = the type). One row per
-- (install, kind, activity); the install's deletion takes its tokens.
CREATE TABLE live_activity_tokens (
  app_id           uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  kind             text NOT NULL CHECK (kind IN ('update', 'start')),
  activity         text NOT NULL,
  subscription_id  uuid NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
  token            text NOT NULL,
  updated_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (app_id, kind, activity, subscription_id)
);
CREATE INDEX live_activity_tokens_of_install ON live_activity_tokens (subscription_id, updated_at);
