-- Identity verification for the app-facing calls (issue 12): the app's identity secret, sealed
-- like push credentials (core/secrets/seal.ts), and whether the SDK calls must prove the
-- external id with external_id_auth_hash.
CREATE TABLE app_identity (
  app_id      uuid PRIMARY KEY REFERENCES apps (id) ON DELETE CASCADE,
  secret      bytea NOT NULL,
  required    boolean NOT NULL DEFAULT false,
  updated_at  timestamptz NOT NULL DEFAULT now()
);
