-- exportSubscriptions (issue 27, docs/api.md "Export"): the one-time links to an app's CSV. A link
-- keeps no data of any user, only how to make the file when it is fetched: the file is streamed
-- from `subscriptions` at download time, so an install erased before then is never in it. The
-- link's token is kept as its SHA-256 only (a stolen row cannot be turned into a download), and
-- the row is deleted by the download that uses it, so a second use finds nothing.
CREATE TABLE export_links (
  token_sha256       bytea PRIMARY KEY,
  app_id             uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  segment_name       text,                      -- the request's segment_name (checked again at download)
  last_active_since  timestamptz,               -- the request's last_active_since
  extra_fields       text[] NOT NULL DEFAULT '{}',
  created_at         timestamptz NOT NULL DEFAULT now(),
  expires_at         timestamptz NOT NULL
);
-- Expired links are pruned by the next link made (core/exports/links.ts).
CREATE INDEX export_links_expiry ON export_links (expires_at);
