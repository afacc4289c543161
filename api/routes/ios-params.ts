// GET /apps/{app_id}/ios_params.js: the settings OneSignal's iOS SDK before 5 downloads at start
// (issue 38 point 1). Until it has them, that SDK holds back setExternalUserId; so Herald answers
// with what applies to it: identity verification (`require_user_id_auth`, the SDK then sends
// external_user_id_auth_hash) and every OneSignal feature Herald does not have turned off (no
// email or SMS, no receive receipts, no provisional prompt, no location, no outcomes service).
// App-facing, as the registration: the App ID alone, the `sdk` bucket per IP (the mount's).
import { getIdentity } from '../../core/apps/identity.js';
import { declare } from '../calls/call.js';
import { r } from '../openapi/answers.js';
import { appOf } from './subscriptions.js';

export const iosParamsCall = declare({
  operationId: 'getIosParams',
  method: 'get',
  path: '/apps/{app_id}/ios_params.js',
  access: 'app',
  answers: { '200': { description: 'The settings.', schema: 'IosParams' } },
  doc: {
    tags: ['players'],
    summary: 'The settings the iOS SDK before 5 downloads at start (App ID alone; the sdk bucket per IP).',
    parameters: [{ name: 'player_id', in: 'query', required: false, description: 'Sent by the SDK; not read.', schema: { type: 'string' } }],
    responses: { '404': r('NotFound'), '429': r('TooManyRequests'), '500': r('ServerError'), '503': r('Unavailable') },
  },
  handler: (deps) =>
    async function iosParamsHandler(ctx): Promise<void> {
      const app = await appOf(deps, ctx);
      const identity = await getIdentity(deps.pool, app.id);
      ctx.body = {
        fba: false,
        uses_provisional_auth: false,
        require_email_auth: false,
        require_sms_auth: false,
        require_user_id_auth: identity?.required === true,
        receive_receipts_enable: false,
        location_shared: false,
        outcomes: { v2_enabled: false },
      };
    },
});
