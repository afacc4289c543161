-- Issue 40 (the dashboard's overview): what its charts read that no table kept, each filled by the
-- scheduler's leader beside retention (core/overview/), so the page reads a few rows, never an
-- app's installs or chunk rows (docs/decisions.md "Issue 40").

-- Devices by state, counted once in a while per app and kept one row per app, UTC day and
-- platform (the day's last count): "reachable now" is today's row, the 30 days' chart the rest.
-- Unsubscribed installs are told apart by who said so: the app (unsubscribed_reason 'app'), the
-- gateway (Apple's reason) or neither recorded (installs unsubscribed before migration 020).
CREATE TABLE app_device_counts (
  app_id                uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  day                   date NOT NULL,
  platform              text NOT NULL,
  subscribed            bigint NOT NULL,
  unsubscribed_app      bigint NOT NULL,
  unsubscribed_gateway  bigint NOT NULL,
  unsubscribed_unknown  bigint NOT NULL,
  counted_at            timestamptz NOT NULL,
  PRIMARY KEY (app_id, day, platform)
);
-- The count of an app's unsubscribed installs by reason, from this index alone; the subscribed are
-- the rest of the app's installs (subscriptions_audience, index-only). Written only when an install
-- is unsubscribed or resubscribed, which is rare beside registrations.
CREATE INDEX subscriptions_unsubscribed ON subscriptions (app_id, unsubscribed_reason) WHERE NOT subscribed;

-- The failure reasons of each finished send that failed some devices ({"BadDeviceToken": 3, ...}),
-- read once from its chunk rows when it finishes (they are pruned after 30 days), kept with the send.
CREATE TABLE send_failure_reasons (
  send_id     bigint PRIMARY KEY REFERENCES sends (id) ON DELETE CASCADE,
  app_id      uuid NOT NULL,
  started_at  timestamptz NOT NULL,
  reasons     jsonb NOT NULL
);
CREATE INDEX send_failure_reasons_app ON send_failure_reasons (app_id, started_at);

-- Where a duty of the overview got to (its sends finished up to `through`).
CREATE TABLE overview_marks (
  duty     text PRIMARY KEY,
  through  timestamptz NOT NULL
);
