-- Event streams (issue 28, docs/events.md, docs/decisions.md "Events: a table of their own"): the
-- events of an app, recorded in the transaction of the facts they report. One row per chunk record
-- (its devices' outcomes, compact: expanded into one event per device only when delivered to a
-- destination) or per send life step (created, finished, canceled). Rows are written only for an
-- app with a destination, so an app without one pays nothing.
CREATE TABLE event_records (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  app_id       uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  send_id      bigint NOT NULL,               -- message.id (no foreign key: retention may remove the send first)
  kind         text NOT NULL,                 -- 'chunk' (device outcomes) or a notification.* kind
  body         jsonb NOT NULL,
  recorded_at  timestamptz NOT NULL DEFAULT now()
);
-- A destination reads its app's records in order from where it stopped.
CREATE INDEX event_records_app ON event_records (app_id, id);

-- An app's webhook destinations (App `spec.events.destinations[]`), and each one's place in the
-- app's records: everything up to `delivered_through`, plus `delivered_offset` events of the next
-- record, has been accepted by the receiver.
CREATE TABLE event_destinations (
  app_id             uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  name               text NOT NULL,
  url                text NOT NULL,
  kinds              text[],                  -- NULL: every kind
  secret             bytea NOT NULL,          -- the whsec_ signing secret, sealed (core/secrets/seal.ts)
  delivered_through  bigint NOT NULL DEFAULT 0,
  delivered_offset   int NOT NULL DEFAULT 0,
  attempts           int NOT NULL DEFAULT 0,  -- failed attempts at the current batch
  retry_at           timestamptz,             -- the current batch's next attempt (back-off, Retry-After)
  lease_until        timestamptz,             -- a dispatcher holds it until then
  last_error         text,
  failing_since      timestamptz,
  created_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (app_id, name)
);
