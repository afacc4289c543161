// The bodies of OneSignal's v1 reports of a device (on_purchase, on_focus) and of the tags of an
// external id's devices (issue 38 point 1): one definition, read by the routes
// (api/routes/player-sessions.ts) and published by the OpenAPI document.
import { AMOUNT_MAX, PLAYER_SCHEMA } from './player-body.js';

/** Purchases in one report: the SDK sends a receipt's items, OneSignal documents no limit. */
export const PURCHASES_MAX = 100;
/** Seconds in one on_focus report: one day (the SDK reports each time the app leaves the foreground). */
export const ACTIVE_TIME_MAX = 86_400;

export const PURCHASE_SCHEMA = {
  type: 'object',
  required: ['purchases'],
  properties: {
    app_id: { type: 'string', maxLength: 64 },
    purchases: {
      type: 'array',
      minItems: 1,
      maxItems: PURCHASES_MAX,
      items: {
        type: 'object',
        required: ['sku', 'amount', 'iso'],
        properties: {
          sku: { type: 'string', maxLength: 255 },
          amount: { type: 'number', minimum: 0, maximum: AMOUNT_MAX },
          iso: { type: 'string', pattern: '^[A-Za-z]{3}$', description: 'ISO 4217 currency code.' },
        },
      },
    },
    existing: { type: 'boolean', description: 'Accepted; the amounts are added either way.' },
  },
} as const;

export const FOCUS_SCHEMA = {
  type: 'object',
  required: ['state', 'active_time'],
  properties: {
    app_id: { type: 'string', maxLength: 64 },
    state: { const: 'ping' },
    active_time: { type: 'integer', minimum: 0, maximum: ACTIVE_TIME_MAX, description: 'Seconds in the foreground since the last report.' },
  },
} as const;

export const EXTERNAL_TAGS_SCHEMA = {
  type: 'object',
  required: ['tags'],
  properties: { app_id: { type: 'string', maxLength: 64 }, tags: PLAYER_SCHEMA.properties.tags },
} as const;
