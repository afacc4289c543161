-- Idempotent retries (contract "Idempotency"). One row per (app, key): claimed as `running` by the
-- first call, turned `done` in the same transaction as the send it made (so key and send commit
-- together or not at all), kept 24 hours. A repeat reads `response` and replays it.
CREATE TABLE idempotency_keys (
  app_id        uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  key           text NOT NULL,
  fingerprint   bytea NOT NULL,                  -- SHA-256 of the canonical request body
  state         text NOT NULL CHECK (state IN ('running', 'done')),
  claim         uuid NOT NULL,                   -- the claiming call; only it may finish or free the row
  claimed_at    timestamptz NOT NULL,            -- a `running` claim older than the lease was abandoned (crash)
  send_id       bigint REFERENCES sends (id) ON DELETE CASCADE,
  response      jsonb,                           -- {httpStatus, body} of the first answer
  expires_at    timestamptz NOT NULL,            -- created + 24 hours; after it the key is free
  PRIMARY KEY (app_id, key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
