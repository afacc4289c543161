// The app's proof of an external id (identity verification, docs/api.md "Identity verification"):
// a hex HMAC-SHA256 of the external id, made by the app's server: 64 hex digits. The schema bounds
// the field at 128 so a longer value is refused by its check (api/routes/identity.ts), which says
// why, rather than by its shape.

export const AUTH_HASH_MAX_CHARS = 128;

/** The JSON Schema of `external_id_auth_hash` in every body that carries it. */
export const EXTERNAL_ID_AUTH_HASH_SCHEMA = { type: 'string', maxLength: AUTH_HASH_MAX_CHARS } as const;
