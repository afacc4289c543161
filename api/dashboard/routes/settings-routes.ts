// The Settings page's routes (issue 40 point 2): any session sees the page; making and revoking
// keys needs a session whose key is of scope admin, each change a POST with the CSRF token that
// draws the `users` bucket (as the dashboard's other writes), behind one confirmation. The key's
// plaintext is on one answer only, and never logged (its id is).
import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { getApp, type AppRecord } from '../../../core/apps/app-store.js';
import { readCredentialsState } from '../../../core/apps/credentials-state.js';
import { readFcmState } from '../../../core/apps/fcm-state.js';
import { readKeyRequest, revokeOwnKey } from '../../../core/apps/key-requests.js';
import { createKey, listKeys, mayUse } from '../../../core/apps/keys.js';
import { appDestinations } from '../../../core/dashboard-reads/app-events.js';
import { ForbiddenError, HeraldError, NotFoundError, ValidationError } from '../../../core/errors.js';
import { isUuid } from '../../../core/formats/uuid.js';
import type { ApiDeps } from '../../shared/deps.js';
import { allowIpsOf, keyCreatedPage, keyFormOf, keyReviewPage, newKeyPage, revokeConfirmPage } from '../pages/key-forms.js';
import { settingsPage } from '../pages/settings.js';
import { layoutOf, page, session } from '../respond.js';
import { drawChangeBucket } from '../change-bucket.js';

const NEEDS_ADMIN = 'Making and revoking keys needs a key of scope admin.';
const NO_KEY = 'No such key in this app.';

export function mountSettings(router: Router, deps: ApiDeps, signedIn: Middleware[], changes: Middleware[]): void {
  const appOf = async (ctx: Context): Promise<AppRecord> => {
    const app = await getApp(deps.pool, session(ctx).appId);
    if (!app) throw new NotFoundError('No such app.');
    return app;
  };
  const showSettings = async (ctx: Context, notice?: { text: string; refused?: boolean }, status = 200) => {
    const app = await appOf(ctx);
    const [credentials, fcm, keys, destinations] = await Promise.all([
      readCredentialsState(deps.pool, app.id, deps.now?.() ?? new Date()), readFcmState(deps.pool, app.id), listKeys(deps.pool, app.id), appDestinations(deps.pool, app.id),
    ]);
    page(ctx, layoutOf(ctx, 'Settings', 'settings'), settingsPage({ app, credentials, fcm, keys, destinations, notice }, session(ctx)), status);
  };
  const admin = (ctx: Context) => {
    if (!mayUse(session(ctx).scope, 'admin')) throw new ForbiddenError(NEEDS_ADMIN);
  };
  /** A change: an admin session, then the `users` bucket, before any work. */
  const mayChange = async (ctx: Context) => {
    admin(ctx);
    await drawChangeBucket(deps, ctx);
  };
  const keyOf = async (ctx: Context) => {
    const id = String(ctx.params.id);
    const key = isUuid(id) ? (await listKeys(deps.pool, session(ctx).appId)).find((k) => k.id === id.toLowerCase()) : undefined;
    if (!key) throw new NotFoundError(NO_KEY);
    return key;
  };

  router.get('/dashboard/settings', ...signedIn, (ctx) => showSettings(ctx));

  router.get('/dashboard/settings/keys/new', ...signedIn, (ctx) => {
    admin(ctx);
    page(ctx, layoutOf(ctx, 'New key', 'settings'), newKeyPage(session(ctx).csrf, { name: '', scope: 'send', allow_ips: '' }));
  });

  // Review (step=review), then Create (step=create) or back to the form (step=edit).
  router.post('/dashboard/settings/keys/new', ...signedIn, ...changes, async (ctx) => {
    await mayChange(ctx);
    const s = session(ctx);
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    const form = keyFormOf(body);
    if (body.step === 'edit') return page(ctx, layoutOf(ctx, 'New key', 'settings'), newKeyPage(s.csrf, form));
    try {
      const request = await readKeyRequest(deps.pool, { name: form.name, scope: form.scope, allowIps: allowIpsOf(form) });
      if (body.step !== 'create') return page(ctx, layoutOf(ctx, 'Create this key?', 'settings'), keyReviewPage(s.csrf, form, request));
      const { record, key } = await createKey(deps.pool, s.appId, { ...request, source: 'dashboard' });
      ctx.state.log.info({ keyId: record.id, scope: record.scope }, 'key created from the dashboard');
      page(ctx, layoutOf(ctx, `Key ${record.name} created`, 'settings'), keyCreatedPage(record, key));
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      page(ctx, layoutOf(ctx, 'New key', 'settings'), newKeyPage(s.csrf, form, error.issues), error.status);
    }
  });

  // A GET only asks: the change is the POST of its form.
  router.get('/dashboard/settings/keys/:id/revoke', ...signedIn, async (ctx) => {
    admin(ctx);
    const key = await keyOf(ctx);
    if (key.revokedAt || key.source === 'app_resource') return ctx.redirect('/dashboard/settings');
    page(ctx, layoutOf(ctx, `Revoke key ${key.name}?`, 'settings'), revokeConfirmPage(session(ctx).csrf, key, key.id === session(ctx).keyId));
  });

  router.post('/dashboard/settings/keys/:id/revoke', ...signedIn, ...changes, async (ctx) => {
    await mayChange(ctx);
    const key = await keyOf(ctx);
    try {
      await revokeOwnKey(deps.pool, session(ctx).appId, key.id, (await appOf(ctx)).name);
    } catch (error) {
      if (!(error instanceof HeraldError) || error.status !== 409) throw error;
      return showSettings(ctx, { text: error.messages[0], refused: true }, error.status);
    }
    ctx.state.log.info({ keyId: key.id }, 'key revoked from the dashboard');
    await showSettings(ctx, { text: `Key ${key.name} was revoked: calls made with it are refused within 5 seconds.` });
  });
}
