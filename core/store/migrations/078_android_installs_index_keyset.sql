-- Issue 39: subscriptions_android as 074 now writes it, (app_id, seq), for the installs list's
-- keyset pages filtered to Android. 074 was first committed on (app_id) alone and changed on its
-- branch before the merge; a database migrated at that first commit (it is in main's history)
-- has the older index, and this makes every database alike. On a fresh database it rebuilds an
-- empty index.
DROP INDEX IF EXISTS subscriptions_android;
CREATE INDEX subscriptions_android ON subscriptions (app_id, seq) INCLUDE (subscribed, unsubscribed_reason) WHERE platform = 'android';
