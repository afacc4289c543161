// The fields of the app-facing install calls (register and update), read by the route's
// validator and published as the OpenAPI request schemas: one definition.
import { DEVICE_TOKEN_SCHEMA } from '../formats/device-token.js';
import { LIMITS } from './limits.js';
import { LANGUAGE_CODE_PATTERN } from '../formats/language-code.js';

export const SUBSCRIPTION_FIELDS = {
  token: DEVICE_TOKEN_SCHEMA,
  external_id: { type: ['string', 'null'], minLength: 1, maxLength: LIMITS.external_id },
  language: { type: ['string', 'null'], pattern: LANGUAGE_CODE_PATTERN },
  timezone: { type: ['string', 'null'], maxLength: 64 },
  tags: {
    type: 'object',
    maxProperties: 200,
    propertyNames: { maxLength: LIMITS.tag },
    // Values as long as keys, and as a send's tag condition (they had no limit).
    additionalProperties: { type: ['string', 'number', 'boolean', 'null'], maxLength: LIMITS.tag },
  },
  subscribed: { type: 'boolean' },
  // OneSignal's test_type: 1 = a development build (its token works on the sandbox gateway only),
  // 2 = an ad hoc build (production gateway, as Apple signs it); null or absent = the App's.
  test_type: { enum: [1, 2, null] },
  // Identity verification (api/routes/identity.ts): checked by value, not by shape.
  external_id_auth_hash: {
    type: 'string',
    maxLength: 128,
    description: "Identity verification (docs/api.md): hex HMAC-SHA256 of the external id with the app's identity secret, made by the app's server.",
  },
};
