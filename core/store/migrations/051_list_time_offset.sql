-- getNotifications with time_offset (issue 30 point 5; docs/api.md "GET /notifications"): an
-- app's sends oldest first by the time OneSignal reports as send_after (the scheduled time, else
-- when it was accepted), then id, read from a cursor. Without this index each page sorted every
-- send of the app.
CREATE INDEX sends_app_time_offset ON sends (app_id, (coalesce(send_after, created_at)), id);
