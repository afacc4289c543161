// The official client's updateSubscription body, {"subscription": {...}} (OneSignal's
// SubscriptionBody), read into the flat fields of the app-facing update (issue 27). Every field it
// accepts changes what it names; a field Herald cannot apply is a 422 naming it, never a silent 200.
import { Ajv, type ErrorObject } from 'ajv';
import { ValidationError } from '../errors.js';
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

const check = new Ajv({ allErrors: false }).compile(SUBSCRIPTION_BODY_SCHEMA);

/** Whether a PATCH body is the client's wrapped form. */
export function isWrapped(body: Record<string, unknown>): boolean {
  return Object.hasOwn(body, 'subscription');
}

/**
 * The wrapped body as the flat update's fields (`enabled` is `subscribed`), or a 422 naming the
 * field. `platform`: the install's (undefined: not known, the iOS rule's sentence), whose rule the
 * token must follow; `type` is passed on for the caller to hold against it.
 */
export function unwrapSubscription(body: Record<string, unknown>, platform: Platform | undefined): Record<string, unknown> {
  if (!check(body)) throw shapeProblem(check.errors![0], platform);
  const given = (body.subscription as { token?: unknown }).token;
  // The schema takes a token of either rule; the install's own decides.
  if (platform !== undefined && given !== undefined && !isInstallToken(platform, given)) {
    throw new ValidationError({ field: 'subscription.token', message: `${installTokenRule(platform, 'subscription.token')}.` });
  }
  const sub = body.subscription as { type?: string; token?: string; enabled?: boolean; test_type?: 1 | 2 | null };
  const flat: Record<string, unknown> = {};
  if (sub.type !== undefined) flat.type = sub.type;
  if (sub.token !== undefined) flat.token = sub.token;
  if (sub.enabled !== undefined) flat.subscribed = sub.enabled;
  if ('test_type' in sub) flat.test_type = sub.test_type;
  if (body.external_id_auth_hash !== undefined) flat.external_id_auth_hash = body.external_id_auth_hash;
  return flat;
}

/** The 422 of the first problem the schema found, naming the field. */
function shapeProblem(e: ErrorObject, platform: Platform | undefined): ValidationError {
  const at = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const extra = (e.params as { additionalProperty?: string }).additionalProperty;
  if (extra !== undefined) {
    const field = at ? `${at}.${extra}` : extra;
    return new ValidationError({ field, message: `${field} is not a field Herald can change on an install (it keeps type, token, enabled and test_type).` });
  }
  if (at === 'subscription.token') return new ValidationError({ field: at, message: `${installTokenRule(platform ?? 'ios', at)}.` });
  if (at === 'subscription.type') return new ValidationError({ field: at, message: `${subscriptionTypeRule(at)}.` });
  if (e.keyword === 'minProperties') return new ValidationError({ field: 'subscription', message: 'subscription names no field to change.' });
  return new ValidationError({ field: at || 'subscription', message: `${at || 'subscription'} ${e.message ?? 'is not valid'}.` });
}
