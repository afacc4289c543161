-- Firebase credentials of an App (issue 39): the service account of Google's JSON, copied from the
-- Secret named by spec.fcm.secretRef (key service-account.json). The private key is sealed at rest
-- (core/secrets/seal.ts, context fcm_credentials.private_key.<app id>); read only by the processes
-- that mint FCM access tokens, never returned by the API. An App may have APNs credentials
-- (app_credentials), FCM ones, or both.
CREATE TABLE fcm_credentials (
  app_id        uuid PRIMARY KEY REFERENCES apps (id) ON DELETE CASCADE,
  project_id    text NOT NULL,
  client_email  text NOT NULL,
  token_uri     text NOT NULL,
  private_key   bytea NOT NULL,
  updated_at    timestamptz NOT NULL DEFAULT now()
);
-- Why the App's FCM credentials were not stored when it was last applied (the reason of the
-- FcmCredentialsReady condition and its sentence); NULL when stored or when the App has none.
ALTER TABLE apps ADD COLUMN fcm_reason text, ADD COLUMN fcm_problem text;
