-- A send narrowed to one platform (isIos / isAndroid, issue 39) counts and plans with
-- `AND platform = $n` (core/audience/filter.ts `narrowing`). The audience index carried the
-- columns a count reads (subscribed, last_active) so counts stay index-only scans; without the
-- platform, a narrowed count fetched every heap page of the app's installs (measured on 25,000
-- installs of 200,000: 324 index buffers → 4,768 buffers, 3x the time). The index is rebuilt with
-- it; CREATE INDEX holds writes to subscriptions while it builds (docs/decisions.md "Issue 39").
DROP INDEX subscriptions_audience;
CREATE INDEX subscriptions_audience ON subscriptions (app_id, seq) INCLUDE (subscribed, last_active, platform);
