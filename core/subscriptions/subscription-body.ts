// The official client's updateSubscription body, {"subscription": {...}} (OneSignal's
// SubscriptionBody), read into the flat fields of the app-facing update (issue 27). Every field it
// accepts changes what it names; a field Herald cannot apply is a 422 naming it, never a silent 200.
import Type from 'typebox';
import { ValidationError } from '../errors.js';
import { checked, type Sentences } from '../validation/checker.js';
import { ANY_INSTALL_TOKEN_SCHEMA, installTokenRule, isInstallToken, SUBSCRIPTION_TYPE_SCHEMA, subscriptionTypeRule, type Platform } from '../formats/install-type.js';
import { EXTERNAL_ID_AUTH_HASH_SCHEMA } from '../formats/identity-hash.js';

/** OneSignal's Subscription fields that an install here has: type, token, enabled, test_type. */
export const SUBSCRIPTION_BODY_SCHEMA = {
  type: 'object',
  required: ['subscription'],
  additionalProperties: false,
  properties: {
    subscription: {
      type: 'object',
      minProperties: 1,
      additionalProperties: false,
      properties: {
        type: SUBSCRIPTION_TYPE_SCHEMA,
        // Either rule here; the install's platform decides (unwrapSubscription).
        token: ANY_INSTALL_TOKEN_SCHEMA,
        enabled: { type: 'boolean' },
        test_type: { enum: [1, 2, null] },
      },
    },
    external_id_auth_hash: EXTERNAL_ID_AUTH_HASH_SCHEMA,
  },
};

const SUBSCRIPTION_BODY = Type.Unsafe<{ subscription: { type?: string; token?: string; enabled?: boolean; test_type?: 1 | 2 | null }; external_id_auth_hash?: string }>(
  SUBSCRIPTION_BODY_SCHEMA,
);

/** The sentences of a broken field; `platform`: the install's (undefined: the iOS rule's). */
function bodySentences(platform: Platform): Sentences {
  return {
    '*:additionalProperties': '{field} is not a field Herald can change on an install (it keeps type, token, enabled and test_type).',
    'subscription.token': `${installTokenRule(platform, 'subscription.token')}.`,
    'subscription.type': `${subscriptionTypeRule('subscription.type')}.`,
    'subscription:minProperties': 'subscription names no field to change.',
  };
}

const SENTENCES: Readonly<Record<Platform, Sentences>> = { ios: bodySentences('ios'), android: bodySentences('android') };

/** Whether a PATCH body is the client's wrapped form. */
export function isWrapped(body: Record<string, unknown>): boolean {
  return Object.hasOwn(body, 'subscription');
}

/**
 * The wrapped body as the flat update's fields (`enabled` is `subscribed`), or a 422 naming each
 * broken field. `platform`: the install's (undefined: not known, the iOS rule's sentence), whose
 * rule the token must follow; `type` is passed on for the caller to hold against it.
 */
export function unwrapSubscription(body: Record<string, unknown>, platform: Platform | undefined): Record<string, unknown> {
  const { subscription: sub } = checked(SUBSCRIPTION_BODY, body, SENTENCES[platform ?? 'ios']);
  // The schema takes a token of either rule; the install's own decides.
  if (platform !== undefined && sub.token !== undefined && !isInstallToken(platform, sub.token)) {
    throw new ValidationError({ field: 'subscription.token', message: `${installTokenRule(platform, 'subscription.token')}.` });
  }
  const flat: Record<string, unknown> = {};
  if (sub.type !== undefined) flat.type = sub.type;
  if (sub.token !== undefined) flat.token = sub.token;
  if (sub.enabled !== undefined) flat.subscribed = sub.enabled;
  if ('test_type' in sub) flat.test_type = sub.test_type;
  if (body.external_id_auth_hash !== undefined) flat.external_id_auth_hash = body.external_id_auth_hash;
  return flat;
}
