-- Herald's system of record. Append-only: never edit a migration that has shipped; add the next number.

CREATE TABLE apps (
  id              uuid PRIMARY KEY,
  name            text NOT NULL UNIQUE,          -- manifest name: "<namespace>/<name>" from a cluster, "<name>" from a file
  bundle_id       text NOT NULL,
  environment     text NOT NULL DEFAULT 'production' CHECK (environment IN ('production', 'sandbox')),
  invoice_overdue boolean NOT NULL DEFAULT false,
  segments        jsonb NOT NULL DEFAULT '[]',   -- App.spec.segments: [{name, conditions: [{key, relation, value}]}]
  disabled        boolean NOT NULL DEFAULT false, -- deleted App: keys revoked, history kept
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);

-- Push credentials of an app, copied from its Secret. Read only by senders; never returned by the API.
CREATE TABLE app_credentials (
  app_id      uuid PRIMARY KEY REFERENCES apps (id) ON DELETE CASCADE,
  kind        text NOT NULL CHECK (kind IN ('token', 'certificate')),
  key_id      text,
  team_id     text,
  material    bytea NOT NULL,                    -- .p8 PEM, .p12, or PEM cert+key
  passphrase  text,
  expires_at  timestamptz,                       -- certificate expiry, when known
  updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  id          uuid PRIMARY KEY,
  app_id      uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  name        text NOT NULL,
  hash        bytea NOT NULL UNIQUE,             -- SHA-256 of the key; the key itself is never stored
  allow_ips   cidr[] NOT NULL DEFAULT '{}',      -- empty: any address
  created_at  timestamptz NOT NULL DEFAULT now(),
  revoked_at  timestamptz
);
CREATE INDEX api_keys_app ON api_keys (app_id);

-- Installs of an app (devices). seq orders them for keyset scans and fixes audience snapshots:
-- a send remembers the highest seq at its start, and devices registered later are not in it.
CREATE TABLE subscriptions (
  id           uuid PRIMARY KEY,
  seq          bigint GENERATED ALWAYS AS IDENTITY,
  app_id       uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  token        text NOT NULL,
  external_id  text,
  language     text,
  timezone     text,
  tags         jsonb NOT NULL DEFAULT '{}',
  subscribed   boolean NOT NULL DEFAULT true,
  last_active  timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (app_id, token)
);
-- Audience counts, the snapshot mark (max seq of an app) and keyset pages of one app, in seq
-- order; `subscribed` and `last_active` ride along so counts are index-only scans.
CREATE INDEX subscriptions_audience ON subscriptions (app_id, seq) INCLUDE (subscribed, last_active);
CREATE INDEX subscriptions_external ON subscriptions (app_id, external_id) WHERE external_id IS NOT NULL;
CREATE INDEX subscriptions_tags ON subscriptions USING gin (tags jsonb_path_ops);

CREATE TABLE sends (
  id                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  app_id             uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  source             text NOT NULL DEFAULT 'api' CHECK (source IN ('api', 'kubernetes')),
  kind               text NOT NULL DEFAULT 'push' CHECK (kind IN ('push', 'in_app')),
  target_kind        text NOT NULL CHECK (target_kind IN ('segment', 'tag', 'subscription_ids', 'external_ids')),
  request            jsonb NOT NULL,              -- the validated SendRequest
  status             text NOT NULL CHECK (status IN ('queued', 'sending', 'scheduled', 'approved', 'draft')),
  message            text NOT NULL DEFAULT '',
  total_recipients   integer NOT NULL DEFAULT 0,
  sent               integer NOT NULL DEFAULT 0,
  failed             integer NOT NULL DEFAULT 0,
  skipped            integer NOT NULL DEFAULT 0,
  left_out           integer NOT NULL DEFAULT 0,  -- never sent because delivery paused (in neither processed nor remaining)
  clicked            integer NOT NULL DEFAULT 0,
  audience_max_seq   bigint,                      -- snapshot: subscriptions with seq above it are not in the send
  chunks_total       integer,                     -- set by the planner
  chunks_done        integer NOT NULL DEFAULT 0,
  throttle_per_min   integer,
  send_after         timestamptz,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  finished_at        timestamptz
);
CREATE INDEX sends_app ON sends (app_id, id);
CREATE INDEX sends_due ON sends (send_after) WHERE status = 'scheduled';
CREATE INDEX sends_running ON sends (updated_at) WHERE status IN ('queued', 'sending');

-- Transactional outbox: a send and its bus messages commit together; a relay publishes and deletes.
CREATE TABLE outbox (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  subject     text NOT NULL,                      -- relative subject, e.g. "work.plan" (the bus adds its prefix)
  msg_id      text NOT NULL,                      -- JetStream Nats-Msg-Id: a replayed publish is dropped
  payload     jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- Opens reported by the app's SDK: one per install and send (contract: clicked).
CREATE TABLE opens (
  send_id          bigint NOT NULL REFERENCES sends (id) ON DELETE CASCADE,
  subscription_id  uuid NOT NULL,
  opened_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (send_id, subscription_id)
);

