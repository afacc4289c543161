-- OneSignal's user model (issue 27, docs/decisions.md "Users: where tags live"). A user owns its
-- properties (tags, language, time zone) and aliases; each of its installs carries a copy of the
-- properties and of its external id, written in the same statement as the user's, so delivery
-- keeps reading one table by (app_id, seq) as before. An install with no user row (user_id NULL)
-- is a user of its own that no user call has touched yet: its own columns are the owner until a
-- user call makes its row (core/users/resolve.ts). Nothing is backfilled: no table is rewritten.
CREATE TABLE users (
  id           uuid PRIMARY KEY,                  -- the OneSignal id
  app_id       uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  tags         jsonb NOT NULL DEFAULT '{}',       -- values as text, as on installs
  language     text,
  timezone_id  text,
  created_at   timestamptz NOT NULL DEFAULT now(), -- first_active
  last_active  timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX users_app ON users (app_id);

-- Aliases: `external_id` and custom labels, each (label, id) naming one user of the app, and a
-- user holding one id per label. The OneSignal id is the users row itself, never stored here.
CREATE TABLE user_aliases (
  app_id    uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  label     text NOT NULL,
  alias_id  text NOT NULL,
  user_id   uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  PRIMARY KEY (app_id, label, alias_id),
  UNIQUE (user_id, label)
);

-- The user an install belongs to. Deleting a user takes its installs (and through them their
-- Live Activity tokens); erasure (core/users/erase.ts) also clears what holds ids without a key.
ALTER TABLE subscriptions ADD COLUMN user_id uuid REFERENCES users (id) ON DELETE CASCADE;
CREATE INDEX subscriptions_user ON subscriptions (user_id) WHERE user_id IS NOT NULL;

-- Erasure finds what names an install without a foreign key, by index: the opens of an install
-- (their key starts with the send), the lists of list sends (sends.request's target ids) and the
-- installs or ids a chunk counts for (send_chunks.entries). Partial: segment and tag sends, and
-- chunks without entries, add no entry.
CREATE INDEX opens_subscription ON opens (subscription_id);
CREATE INDEX sends_target_ids ON sends USING gin ((request->'target'->'ids')) WHERE request->'target' ? 'ids';
CREATE INDEX send_chunks_entries ON send_chunks USING gin (entries) WHERE entries IS NOT NULL;
