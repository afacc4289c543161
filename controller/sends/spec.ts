// Between a Send's spec and the REST body. A kubectl-applied Send becomes the body the REST call
// would carry (same validation, same messages); a REST send mirrored as a Send gets its spec back
// from the stored, validated SendRequest.
import type { SendRequest } from '../../core/send/request.js';
import type { SendSpec } from './types.js';

/**
 * The REST body of a Send: the spec's fields as they are, app_id from the App in place of appRef.
 * `cancel` is not part of what is sent (it may be set later), so it never changes the idempotency
 * fingerprint of a resubmission.
 */
export function restBody(spec: SendSpec, appId: string): Record<string, unknown> {
  const { appRef: _appRef, cancel: _cancel, ...fields } = spec;
  return { app_id: appId, ...fields };
}

/** The spec of a mirror from the stored request (a read-only picture of what was sent). */
export function specFromRequest(appName: string, req: SendRequest): SendSpec {
  const spec: SendSpec = { appRef: { name: appName }, contents: req.contents };
  if (req.headings && Object.keys(req.headings).length) spec.headings = req.headings;
  const t = req.target;
  if (t.kind === 'segment') spec.included_segments = [t.segment];
  else if (t.kind === 'tag') spec.tag = { key: t.tag.key, relation: t.tag.relation, ...(t.tag.value !== undefined ? { value: t.tag.value } : {}) };
  else if (t.kind === 'subscription_ids') spec.include_subscription_ids = t.ids;
  else spec.include_external_ids = t.ids;
  if (req.sendAfter) spec.send_after = new Date(req.sendAfter).toISOString();
  if (req.timezoneDelivery) spec.delayed_option = 'timezone';
  if (req.url) spec.url = req.url;
  if (req.imageUrl) spec.big_picture = req.imageUrl;
  if (req.data && Object.keys(req.data).length) spec.data = req.data;
  if (req.button) spec.buttons = [req.button];
  if (req.throttleRatePerMinute !== undefined) spec.throttle_rate_per_minute = req.throttleRatePerMinute;
  if (req.idempotencyKey) spec.idempotency_key = req.idempotencyKey;
  return spec;
}
