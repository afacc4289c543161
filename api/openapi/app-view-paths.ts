// getApp for the key's own app in the OpenAPI document (issue 38 point 2; api/routes/app-view.ts).
import { APP_PARAM, type Helpers } from './path-helpers.js';

export const APP_VIEW_SCHEMAS = {
  AppView: {
    type: 'object',
    required: ['id', 'name', 'players', 'messageable_players', 'apns_env', 'created_at', 'updated_at'],
    properties: {
      id: { type: 'string', format: 'uuid' },
      name: { type: 'string' },
      players: { type: 'integer', minimum: 0, description: "The app's installs." },
      messageable_players: { type: 'integer', minimum: 0, description: 'Its subscribed installs.' },
      apns_env: { type: 'string', enum: ['production', 'sandbox'] },
      created_at: { type: 'string', format: 'date-time' },
      updated_at: { type: 'string', format: 'date-time' },
    },
  },
};

export function appViewPaths({ ok, r, AUTHENTICATED }: Helpers): Record<string, Record<string, unknown>> {
  return {
    '/apps/{app_id}': {
      get: {
        operationId: 'getApp',
        tags: ['apps'],
        summary: "The key's own app (any scope; the estimate bucket): another app's id is a 403.",
        parameters: [APP_PARAM],
        responses: { '200': ok('The app.', 'AppView'), '404': r('NotFound'), ...AUTHENTICATED },
      },
    },
  };
}
