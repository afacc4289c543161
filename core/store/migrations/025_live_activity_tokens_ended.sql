-- Update tokens of activities that have certainly ended (registered more than 12 hours ago:
-- ActivityKit ends an activity after 8 hours and clears it from the Lock Screen 4 hours later)
-- are dropped once a minute by the scheduler's leader; this index serves that sweep. Sorts after
-- 024_live_activity_tokens.sql, which makes the table (both landed as 019_…: see
-- core/store/renamed-migrations.ts).
CREATE INDEX live_activity_tokens_ended ON live_activity_tokens (updated_at) WHERE kind = 'update';
