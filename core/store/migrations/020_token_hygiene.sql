-- Token hygiene as Apple asks (docs/delivery.md "Token hygiene").
-- environment: the gateway an install's token belongs to, from the SDK's test_type (a development
--   build's token works only on the sandbox gateway); NULL = the App's environment.
-- registered_at: the last time the SDK registered the token; a 410 unsubscribes only when Apple's
--   timestamp is later. NULL = created_at (rows from before this column; no table rewrite).
-- unsubscribed_reason: why an install is not subscribed: 'app' (the SDK said so) or Apple's reason.
ALTER TABLE subscriptions
  ADD COLUMN environment text CHECK (environment IN ('production', 'sandbox')),
  ADD COLUMN registered_at timestamptz,
  ADD COLUMN unsubscribed_reason text;
