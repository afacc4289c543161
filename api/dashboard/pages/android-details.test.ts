// What the report, a template's page and Review list for Android, read from requests checked by the
// send's own rules: each field with Android's default when absent, the priority and time to live as
// the FCM payload builder writes them, a background send data-only, a send for iOS only saying so.
import { expect } from 'chai';
import { validateSendRequest } from '../../../core/validation/validate-send.js';
import { buildFcmMessage } from '../../../core/payload/fcm-message.js';
import { androidFields, platformsOf } from './android-details.js';
import { count } from './format.js';

const APP = '5b0b6f2e-0f55-4c3c-9d0b-1f0a0e6f6c11';
const request = (fields: Record<string, unknown>) =>
  validateSendRequest({ body: { app_id: APP, included_segments: ['Subscribed Users'], ...fields }, app: { id: APP, bundleId: 'com.example.shop', segmentNames: [] }, now: new Date() });
const rows = (fields: Record<string, unknown>) => Object.fromEntries(androidFields(request(fields)));

describe('dashboard: the Android fields of a message', () => {
  it("lists every field with Android's default when absent, priority high and 3 days to live (as for Apple)", () => {
    expect(rows({ contents: { en: 'x' } })).to.deep.equal({
      Channel: "the app's default channel", 'Small icon': "the app's default icon", 'Accent colour': 'none', Sound: "the channel's", Group: 'none',
      Priority: 'high', 'Time to live': '259,200 s (3 days, the default)',
    });
  });

  it('lists each field as given (the accent colour also as #RRGGBB; either channel field), the priority, time to live and collapse key', () => {
    const given = rows({ contents: { en: 'x' }, existing_android_channel_id: 'app-made', small_icon: 'ic', android_accent_color: 'ff0099cc', android_sound: 's', android_group: 'g', priority: 5, ttl: 0, collapse_id: 'score' });
    expect(given).to.deep.equal({
      Channel: 'app-made', 'Small icon': 'ic', 'Accent colour': 'ff0099cc (#0099CC)', Sound: 's', Group: 'g', Priority: 'normal', 'Time to live': '0 s', 'Collapse key': 'score',
    });
    expect(rows({ contents: { en: 'x' }, priority: 10, ttl: 3600 })).to.include({ Priority: 'high', 'Time to live': '3,600 s' });
  });

  it('a background send is data-only on Android (priority high); with text it is a notification', () => {
    const background = rows({ content_available: true, small_icon: 'ic', priority: 5 });
    expect(background).to.include({ Channel: 'none (a data-only message)', 'Small icon': 'none (a data-only message)', Priority: 'high' });
    expect(rows({ content_available: true, contents: { en: 'x' }, small_icon: 'ic' })).to.include({ 'Small icon': 'ic' });
  });

  it("says what the FCM payload builder writes: priority, ttl, collapse key, the notification's fields", () => {
    const bodies: Record<string, unknown>[] = [
      { contents: { en: 'x' } },
      { contents: { en: 'x' }, priority: 5, ttl: 60, collapse_id: 'c', android_channel_id: 'n', small_icon: 'i', android_accent_color: 'FF112233', android_sound: 's', android_group: 'g' },
      { contents: { en: 'x' }, priority: 1 },
      { content_available: true, priority: 5, ttl: 10 },
    ];
    for (const body of bodies) {
      const req = request(body);
      const shown = Object.fromEntries(androidFields(req));
      const android = buildFcmMessage(req, 'en').android as { priority: string; ttl?: string; collapse_key?: string; notification?: Record<string, string> };
      expect(shown.Priority, JSON.stringify(body)).to.equal(android.priority.toLowerCase());
      expect(shown['Time to live'].startsWith(`${count(Number(android.ttl!.slice(0, -1)))} s`), shown['Time to live']).to.equal(true);
      expect(shown['Collapse key']).to.equal(android.collapse_key);
      const n = android.notification ?? {};
      if (n.channel_id) expect(shown.Channel).to.equal(n.channel_id);
      if (n.color) expect(shown['Accent colour']).to.contain(`(${n.color})`);
      for (const [label, key] of [['Small icon', 'icon'], ['Sound', 'sound'], ['Group', 'tag']]) if (n[key]) expect(shown[label]).to.equal(n[key]);
    }
  });

  it('a send for iOS only says Android gets nothing; the platforms in words', () => {
    expect(androidFields(request({ contents: { en: 'x' }, isAndroid: false, small_icon: 'ic' }))).to.deep.equal([['Sent to Android', 'no: this message is for iOS only']]);
    expect([{}, { isAndroid: false }, { isIos: false }, { isIos: true, isAndroid: true }].map((f) => platformsOf(request({ contents: { en: 'x' }, ...f })))).to.deep.equal(
      ['iOS and Android', 'iOS only', 'Android only', 'iOS and Android'],
    );
  });
});
