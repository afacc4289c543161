// getApp (GET /apps/{app_id}) for the key's own app (issue 38 point 2; docs/api.md "Calls Herald
// does not serve"): the official client sends its organizationApiKey here, and an app's REST key
// given as that reads its own app. Another app's id is a 403 saying so: Herald has no key that
// reads several apps. The counts are a live count of the app's installs: the `estimate` bucket,
// as an estimate's count.
import Type from 'typebox';
import { NotFoundError } from '../../core/errors.js';
import { readAppView } from '../../core/apps/app-view.js';
import { declare } from '../calls/call.js';
import { AUTHENTICATED, r } from '../openapi/answers.js';
import { APP_PARAM } from '../openapi/path-helpers.js';

export const OTHER_APP =
  "getApp reads the key's own app only: Herald has no Organization API key, so call it with that app's REST API key (as the client's organizationApiKey); `herald apps list` shows every app.";

/** The answer: the key's own app and its installs' counts. */
const AppViewAnswer = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  players: Type.Integer({ minimum: 0, description: "The app's installs." }),
  messageable_players: Type.Integer({ minimum: 0, description: 'Its subscribed installs.' }),
  apns_env: Type.Unsafe<'production' | 'sandbox'>({ type: 'string', enum: ['production', 'sandbox'] }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

export const getAppCall = declare({
  operationId: 'getApp',
  method: 'get',
  path: '/apps/{app_id}',
  access: 'key',
  app: 'path',
  otherApp: OTHER_APP,
  bucket: 'estimate',
  answers: { '200': { description: 'The app.', schema: AppViewAnswer } },
  doc: {
    tags: ['apps'],
    summary: "The key's own app (any scope; the estimate bucket): another app's id is a 403.",
    parameters: [APP_PARAM],
    responses: { '404': r('NotFound'), ...AUTHENTICATED },
  },
  handler: (deps) =>
    async function getAppHandler(ctx): Promise<void> {
      const view = await readAppView(deps.pool, ctx.state.auth.appId);
      if (!view) throw new NotFoundError('No such app.');
      ctx.body = view;
    },
});
