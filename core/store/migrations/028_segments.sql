-- Segments created through the API (issue 27 point 3; docs/decisions.md "Issue 27 — segments").
-- The App resource's segments stay in apps.segments, the GitOps source; these are the app's
-- others, made by createSegment and the dashboard. `filters` is the body's list as given (echoed
-- by getSegment), `groups` what the one filters validator read from it (core/validation/
-- send-target.ts): the conditions the audience SQL is built from (core/audience/segments.ts).
-- A name is unique per app; a name the App resource also defines is refused when written here.
CREATE TABLE segments (
  id          uuid PRIMARY KEY,
  app_id      uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  name        text NOT NULL,
  filters     jsonb NOT NULL,
  groups      jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (app_id, name)
);
