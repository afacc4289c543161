-- Issue 39 (the overview's devices by platform, core/overview/device-counts.ts): an app's Android
-- installs counted by state from this index alone (index-only, as the iOS figures are: the rest of
-- the app's installs, from subscriptions_audience and subscriptions_unsubscribed). Partial: an iOS
-- install has no entry, so the apps that have no Android installs pay nothing for it, and an
-- Android registration writes one more small entry.
CREATE INDEX subscriptions_android ON subscriptions (app_id) INCLUDE (subscribed, unsubscribed_reason) WHERE platform = 'android';
