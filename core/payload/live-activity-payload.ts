// The `aps` of a Live Activity push (Apple, "Starting and updating Live Activities with
// ActivityKit push notifications"): timestamp, event, content-state, and for a start
// attributes-type and attributes; stale-date, dismissal-date (end only), relevance-score, and an
// alert whose title, body and sound ActivityKit shows when the activity changes. Nothing outside
// `aps`: a Live Activity's widget reads no custom keys. Pure: no I/O, no clock.
//
// A start's attributes carry `onesignal: {activityId}`: OneSignal's iOS SDK decodes it as
// `OneSignalLiveActivityAttributeData` (the reserved `onesignal` attribute of
// `OneSignalLiveActivityAttributes`) and registers the new activity's update token under that id
// (OneSignalLiveActivitiesManagerImpl: `enter(activity.attributes.onesignal.activityId, …)`).
import type { SendRequest } from '../send-model/request.js';
import { textFor } from './language.js';

function alertOf(req: SendRequest, lang: string): Record<string, unknown> | undefined {
  const body = req.contents[lang];
  if (body === undefined) return undefined; // no alert: a silent change of the activity
  const alert: Record<string, unknown> = {};
  const title = textFor(req.headings, lang, req.defaultLanguage);
  if (title !== undefined) alert.title = title;
  alert.body = body;
  // In a Live Activity alert the sound sits inside `alert`; without one the change is silent.
  if (req.apns.sound !== undefined) alert.sound = req.apns.sound;
  return alert;
}

export function liveActivityAps(req: SendRequest, lang: string): Record<string, unknown> {
  const la = req.liveActivity!;
  const aps: Record<string, unknown> = { timestamp: la.timestamp, event: la.event, 'content-state': la.contentState };
  if (la.event === 'start') {
    aps['attributes-type'] = la.activityType;
    aps.attributes = { ...la.attributes, onesignal: { activityId: la.activityId } };
    // iOS 18 subscribes the activity it starts to this channel; earlier systems ignore the key
    // and register an update token as before.
    if (la.channelId !== undefined) aps['input-push-channel'] = la.channelId;
  }
  if (la.staleDate !== undefined) aps['stale-date'] = la.staleDate;
  if (la.dismissalDate !== undefined) aps['dismissal-date'] = la.dismissalDate;
  if (req.apns.relevanceScore !== undefined) aps['relevance-score'] = req.apns.relevanceScore;
  const alert = alertOf(req, lang);
  if (alert) aps.alert = alert;
  return aps;
}
