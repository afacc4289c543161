// getOutcomes (GET /apps/{app_id}/outcomes; issue 30 point 4): the app's click outcome over
// OneSignal's time ranges (core/send/click-outcomes.ts). Any key of the app; the path's app_id
// must be the key's (403, as the user and segment calls). It counts over the app's opens, as an
// estimate counts over its installs, so it draws the `estimate` bucket (docs/decisions.md "Issue 30
// — history, outcomes"). Its query is read by core/send/click-outcomes.ts (400 naming the parameter).
import { CLICK_OUTCOME, OUTCOME_ATTRIBUTIONS, OUTCOME_LIMITS, OUTCOME_PLATFORMS, OUTCOME_TIME_RANGES, clickOutcomes, parseOutcomeQuery } from '../../core/send/click-outcomes.js';
import { declare } from '../calls/call.js';
import { AUTHENTICATED, r } from '../openapi/answers.js';
import { APP_PARAM } from '../openapi/path-helpers.js';

/** The answer, a component of the document (api/openapi/schemas.ts). */
export const OUTCOME_SCHEMAS = {
  Outcomes: {
    type: 'object',
    required: ['outcomes'],
    properties: {
      outcomes: {
        type: 'array',
        items: {
          type: 'object',
          required: ['id', 'value', 'aggregation'],
          properties: { id: { const: CLICK_OUTCOME }, value: { type: 'integer', minimum: 0 }, aggregation: { const: 'count' } },
        },
      },
    },
  },
};

const query = (name: string, description: string, schema: unknown) => ({ name, in: 'query', required: false, description, schema });

export const outcomesCall = declare({
  operationId: 'getOutcomes',
  method: 'get',
  path: '/apps/{app_id}/outcomes',
  access: 'key',
  app: 'path',
  bucket: 'estimate',
  answers: { '200': { description: 'The outcome.', schema: 'Outcomes' } },
  doc: {
    tags: ['notifications'],
    summary: "The app's click outcome (os__click.count) over a time range (any key; the estimate bucket).",
    parameters: [
      APP_PARAM,
      query('outcome_names', `Comma-separated; only ${CLICK_OUTCOME}.count is recorded (any other name: 400).`, { type: 'string' }),
      query('outcome_names[]', 'One name (a name with a comma).', { type: 'string', maxLength: OUTCOME_LIMITS.name }),
      query('outcome_time_range', 'The last hour, day or 30 days (default 1h; 30d as 1mo).', { type: 'string', enum: Object.keys(OUTCOME_TIME_RANGES) }),
      query('outcome_platforms', `Comma-separated device types (${OUTCOME_PLATFORMS.join(', ')}); Herald's installs are 0, iOS, and 1, Android.`, { type: 'string' }),
      query('outcome_attribution', 'A click is direct: influenced and unattributed are 0 (default total).', { type: 'string', enum: OUTCOME_ATTRIBUTIONS }),
    ],
    responses: { '400': r('BadRequest'), ...AUTHENTICATED },
  },
  handler: (deps) => {
    const now = deps.now ?? (() => new Date());
    return async function outcomesHandler(ctx): Promise<void> {
      const query = parseOutcomeQuery(ctx.query);
      ctx.body = await clickOutcomes(deps.pool, ctx.state.auth.appId, query, now());
    };
  },
});
