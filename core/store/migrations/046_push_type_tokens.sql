-- Tokens of an install's other push types (issue 29, docs/api.md "Push type tokens"): a PushKit
-- VoIP or complication token, a location push token (CLLocationManager
-- startMonitoringLocationPushes), a push-to-talk token (PTChannelManager), a WidgetKit widgets or
-- controls token. Apple hands each out apart from the alert token, and a push of that type goes
-- to it only. One per (install, push type): a new registration replaces the token; the install's
-- deletion takes its tokens. Apple refusing one for good removes that row only.
CREATE TABLE push_type_tokens (
  app_id           uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  subscription_id  uuid NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
  push_type        text NOT NULL CHECK (push_type IN ('voip', 'location', 'complication', 'pushtotalk', 'widgets', 'controls')),
  token            text NOT NULL,
  updated_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (subscription_id, push_type)
);
