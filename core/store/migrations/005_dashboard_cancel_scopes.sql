-- Issue 13 (dashboard): key scopes, cancelled sends, the Dashboard source, and dashboard sessions.

-- A key's scope: 'send' may do everything (every key issued before scopes existed), 'read' may
-- only read stats, list sends and sign in to the dashboard.
ALTER TABLE api_keys ADD COLUMN scope text NOT NULL DEFAULT 'send' CHECK (scope IN ('send', 'read'));

-- When a send was cancelled (DELETE /api/v1/notifications/{id}, Send.spec.cancel). A cancel is a
-- stop like a pause: no new chunk starts, the send ends approved or draft by the same rule.
ALTER TABLE sends ADD COLUMN canceled_at timestamptz;
ALTER TABLE sends DROP CONSTRAINT sends_stopped_check;
ALTER TABLE sends ADD CONSTRAINT sends_stopped_check CHECK (stopped IN ('paused', 'credentials', 'canceled'));

-- Sends composed in the dashboard.
ALTER TABLE sends DROP CONSTRAINT sends_source_check;
ALTER TABLE sends ADD CONSTRAINT sends_source_check CHECK (source IN ('api', 'kubernetes', 'dashboard'));

-- Dashboard sessions: only the SHA-256 of the cookie's token is stored (a database dump does not
-- sign anyone in). A session belongs to one key, hence to one app and one scope.
CREATE TABLE dashboard_sessions (
  hash        bytea PRIMARY KEY,
  key_id      uuid NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  csrf        text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL
);
CREATE INDEX dashboard_sessions_expiry ON dashboard_sessions (expires_at);
