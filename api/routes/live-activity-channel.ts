// GET /apps/{app_id}/live_activities/{activity_id}/channel?subscription_id=…: the broadcast
// channel an app that starts a Live Activity itself (ActivityKit's Activity.request with
// pushType: .channel(id), iOS 18) subscribes it to, made on first need (issue 29,
// docs/live-activities.md "An app that starts activities itself"). Shaped like the app-facing
// token calls (live-activity-tokens.ts): anonymous (the app id is public), the SDK bucket of the
// caller's address, an install of this app named by subscription_id and, when the app verifies
// identity, the hash of the install's own external id. Naming an install makes every channel an
// anonymous caller can have made cost it an install and an SDK bucket draw; the quota policy
// retires the ones no activity uses (core/live-activities/channels.ts).
import { NotFoundError, ValidationError } from '../../core/errors.js';
import { ACTIVITY_ID, ACTIVITY_ID_RULE } from '../../core/live-activities/names.js';
import { isUuid } from '../../core/formats/uuid.js';
import { AUTH_HASH_MAX_CHARS } from '../../core/formats/identity-hash.js';
import type { ApiDeps } from '../shared/deps.js';
import { appOf } from './subscriptions.js';
import { declare } from '../calls/call.js';
import { IDENTITY, SDK, r } from '../openapi/answers.js';
import { checkIdentity } from './identity.js';

/** The install's gateway: its own (a development build: sandbox) or, when NULL, the App's. */
async function installEnvironment(deps: ApiDeps, appId: string, id: string): Promise<'production' | 'sandbox' | null | undefined> {
  const res = await deps.pool.query<{ environment: 'production' | 'sandbox' | null }>('SELECT environment FROM subscriptions WHERE app_id = $1 AND id = $2', [appId, id]);
  return res.rows.length ? res.rows[0].environment : undefined;
}

export const readActivityChannelCall = declare({
  operationId: 'readLiveActivityChannel',
  method: 'get',
  path: '/apps/{app_id}/live_activities/{activity_id}/channel',
  access: 'app',
  answers: { '200': { description: 'The channel (null: none for this install).', schema: 'LiveActivityChannel' } },
  doc: {
    tags: ['sdk'],
    summary: "The activity's broadcast channel, made on first need, for an app that starts the activity itself (docs/live-activities.md).",
    // Checked by the handler, after the path's activity_id, with their own sentences.
    parameters: [
      { name: 'subscription_id', in: 'query', required: true, description: "The install's Subscription ID.", schema: { type: 'string', format: 'uuid' } },
      { name: 'external_id_auth_hash', in: 'query', required: false, description: "When the app verifies identity: the hash of the install's external id.", schema: { type: 'string', maxLength: AUTH_HASH_MAX_CHARS } },
    ],
    responses: { '403': IDENTITY, '404': r('NotFound'), ...SDK },
  },
  handler: (deps) =>
    async function readActivityChannelHandler(ctx): Promise<void> {
      const activityId = String(ctx.params.activity_id);
      if (!ACTIVITY_ID.test(activityId)) throw new ValidationError(ACTIVITY_ID_RULE);
      const subscriptionId = ctx.query.subscription_id;
      if (typeof subscriptionId !== 'string' || !isUuid(subscriptionId)) throw new ValidationError("subscription_id must be the install's Subscription ID (a UUID), given once.");
      const hash = ctx.query.external_id_auth_hash;
      // Bounded as in the token calls' bodies; whether it is right is checkIdentity's (403).
      if (hash !== undefined && (typeof hash !== 'string' || hash.length > AUTH_HASH_MAX_CHARS)) throw new ValidationError(`external_id_auth_hash must be a string of at most ${AUTH_HASH_MAX_CHARS} characters, given once.`);
      const app = await appOf(deps, ctx);
      const id = subscriptionId.toLowerCase();
      await checkIdentity(deps.pool, app.id, { external_id_auth_hash: hash }, { id });
      const environment = await installEnvironment(deps, app.id, id);
      if (environment === undefined) throw new NotFoundError('No such subscription.');
      if (!app.liveActivityBroadcast || !deps.liveActivityBroadcast) throw new NotFoundError('This app does not use broadcast channels (spec.liveActivities.broadcast): register the activity\'s update token instead.');
      // null: no channel for this install (another environment's build, or channel management
      // failed — counted and shown in the App's condition): the activity registers its update token.
      const channelId = await deps.liveActivityBroadcast.channelFor(app, activityId, environment ?? app.environment);
      ctx.body = { activity_id: activityId, channel_id: channelId ?? null };
    },
});
