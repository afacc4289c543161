-- Issue 38 point 1: what OneSignal's v1 device calls report about an install (POST
-- /players/{id}/on_session, /on_purchase, /on_focus; the session_count of POST /players), kept on
-- the install and shown by GET /players/{id}. The last session is `last_active`, which every
-- SDK call already sets and the `last_session` filter already reads (docs/decisions.md "Issue 38").
-- Constant defaults: adding them rewrites no row.
ALTER TABLE subscriptions
  ADD COLUMN session_count integer NOT NULL DEFAULT 0 CHECK (session_count >= 0),
  -- Seconds in the app, the sum of the on_focus reports.
  ADD COLUMN session_time bigint NOT NULL DEFAULT 0 CHECK (session_time >= 0),
  -- The sum of the on_purchase amounts, in the purchases' own currencies as OneSignal adds them.
  ADD COLUMN amount_spent numeric(16, 2) NOT NULL DEFAULT 0;
