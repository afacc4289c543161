-- Issue 39 (the dashboard's platforms): an app's Android installs from this index alone, newest
-- first: the overview counts them by state (index-only, core/overview/device-counts.ts; the iOS
-- figures are the rest of the app's installs, from subscriptions_audience and
-- subscriptions_unsubscribed), and the installs list filtered to Android reads its pages by keyset
-- on it (core/subscriptions/browse-installs.ts). Partial: an iOS install has no entry, so apps
-- without Android installs pay nothing, and an Android registration writes one more small entry.
CREATE INDEX subscriptions_android ON subscriptions (app_id, seq) INCLUDE (subscribed, unsubscribed_reason) WHERE platform = 'android';
