// GET /apps/{app_id}/ios_params.js: the settings OneSignal's iOS SDK before 5 downloads at start
// (issue 38 point 1). Until it has them, that SDK holds back setExternalUserId; so Herald answers
// with what applies to it: identity verification (`require_user_id_auth`, the SDK then sends
// external_user_id_auth_hash) and every OneSignal feature Herald does not have turned off (no
// email or SMS, no receive receipts, no provisional prompt, no location, no outcomes service).
// App-facing, as the registration: the App ID alone, the `sdk` bucket per IP.
import type { Context } from 'koa';
import { NotFoundError } from '../../core/errors.js';
import { getApp } from '../../core/apps/app-store.js';
import { getIdentity } from '../../core/apps/identity.js';
import { isUuid } from '../../core/formats/uuid.js';
import type { ApiDeps } from '../shared/deps.js';
import { drawSdk } from './subscriptions.js';

export function iosParamsRoute(deps: ApiDeps) {
  return async function iosParamsHandler(ctx: Context): Promise<void> {
    await drawSdk(deps, ctx);
    const appId = String(ctx.params.app_id);
    const app = isUuid(appId) ? await getApp(deps.pool, appId.toLowerCase()) : undefined;
    if (!app || app.disabled) throw new NotFoundError('No such app.');
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
  };
}
