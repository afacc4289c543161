-- Issue 37: one provider token per gateway credential across the fleet. Every Herald process (api,
-- senders, controller) presents the token held here for a team and key (APNs) or, later, a
-- service account (FCM); whoever finds none valid mints it under a transaction-scoped advisory
-- lock (core/gateway/fleet-token-store.ts), so a restart or a rollout reuses it. The token is
-- sealed at rest (core/secrets/seal.ts, context fleet_tokens.token.<kind>:<identity>). No app
-- reference: one team's key serves every App that names it.
CREATE TABLE fleet_tokens (
  kind       text NOT NULL CHECK (kind IN ('apns', 'fcm')),
  -- APNs: "<team id>.<key id>.<16 hex digits of the public key's SHA-256>": the key's fingerprint
  -- keeps a token of a replaced .p8 under the same key id from being presented.
  identity   text NOT NULL CHECK (length(identity) BETWEEN 1 AND 200),
  token      bytea NOT NULL,
  issued_at  timestamptz NOT NULL,
  expires_at timestamptz NOT NULL CHECK (expires_at > issued_at),
  PRIMARY KEY (kind, identity)
);
