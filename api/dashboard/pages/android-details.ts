// What a message carries to Android devices, as the report, a template's page and compose's review
// list it (issue 39 point 8, issue 40 point 4): the platforms it is for, and every field of FCM's
// message.android the payload builder (core/payload/fcm-message.ts) writes from it: the channel,
// small icon, accent colour (as given and as FCM's #RRGGBB), sound, group, the priority, the time
// to live and the collapse key, each with what Android does when it is not set.
import type { MessageFields } from '../../../core/dashboard-reads/send-message.js';
import { fcmColor } from '../../../core/payload/fcm-message.js';
import { count } from './format.js';
import { DEFAULT_TTL_SECONDS } from '../../../core/payload/apns-headers.js';

/** The platforms a message goes to, in words. */
export function platformsOf(m: Pick<MessageFields, 'platforms'>): string {
  if (m.platforms?.length !== 1) return 'iOS and Android';
  return m.platforms[0] === 'ios' ? 'iOS only' : 'Android only';
}

/** The rows of the Android section (label, value). */
export function androidFields(m: MessageFields): [string, string][] {
  if (m.platforms?.length === 1 && m.platforms[0] === 'ios') return [['Sent to Android', 'no: this message is for iOS only']];
  const a = m.android ?? {};
  const { priority, ttlSeconds, collapseId } = m.apns;
  // A background send is data-only on Android (no notification fields), with priority HIGH: the
  // payload builder's rule (core/payload/fcm-message.ts isBackground), content_available and no text.
  const background = m.apns.contentAvailable === true && !Object.values(m.contents).some((t) => t !== '');
  const shown = (value: string | undefined, absent: string) => (background ? 'none (a data-only message)' : (value ?? absent));
  const rows: [string, string][] = [
    ['Channel', shown(a.channelId, "the app's default channel")],
    ['Small icon', shown(a.smallIcon, "the app's default icon")],
    ['Accent colour', shown(a.accentColor && `${a.accentColor} (${fcmColor(a.accentColor) ?? a.accentColor})`, 'none')],
    ['Sound', shown(a.sound, "the channel's")],
    ['Group', shown(a.group, 'none')],
    ['Priority', background || priority === undefined || priority === 10 ? 'high' : 'normal'],
    ['Time to live', ttlSeconds === undefined ? `${count(DEFAULT_TTL_SECONDS)} s (3 days, the default)` : `${count(ttlSeconds)} s`],
  ];
  if (collapseId !== undefined) rows.push(['Collapse key', collapseId]);
  return rows;
}
