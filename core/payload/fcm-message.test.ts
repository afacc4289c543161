// The FCM message of a send (issue 39 point 3): each source field onto its FCM field, table-driven,
// and FCM's 4,096 bytes at its edge.
import { expect } from 'chai';
import type { SendRequest } from '../send-model/request.js';
import { buildFcmMessage, buildFcmMessageForDevice, fcmColor, fcmRequestBody, largestFcmMessageBytes } from './fcm-message.js';
import { FCM_MAX_MESSAGE_BYTES, fcmMessageBytes, fitsFcm } from './fcm-size.js';
import { PLACEHOLDER_SEND_ID } from './apns-payload.js';

function request(extra: Partial<SendRequest> = {}): SendRequest {
  return {
    appId: '0b7e4a4e-3b0a-4d3c-9a43-6f1f4b7f6d0e',
    target: { kind: 'segment', segment: 'Subscribed Users' },
    contents: { en: 'Hello', fr: 'Bonjour' },
    defaultLanguage: 'en',
    apns: {},
    ...extra,
  };
}

const custom = (m: Record<string, unknown>) => JSON.parse((m.data as Record<string, string>).custom);

describe('buildFcmMessage', () => {
  it('builds the minimal message: body, HIGH priority, 3 days to live as for Apple, custom with the send id', () => {
    expect(buildFcmMessage(request(), 'fr', { sendId: 42 })).to.deep.equal({
      notification: { body: 'Bonjour' },
      android: { priority: 'HIGH', ttl: '259200s' },
      data: { custom: '{"i":"42"}' },
    });
  });

  it('writes a 64-bit send id exactly, and the widest placeholder without one', () => {
    expect(custom(buildFcmMessage(request(), 'en', { sendId: 9007199254740993n })).i).to.equal('9007199254740993');
    expect(custom(buildFcmMessage(request(), 'en')).i).to.equal(PLACEHOLDER_SEND_ID);
  });

  // [what, the request's fields, the path read, the value expected there]
  const rows: Array<[string, Partial<SendRequest>, (m: Record<string, any>) => unknown, unknown]> = [
    ['headings → notification.title', { headings: { en: 'News', fr: 'Nouvelles' } }, (m) => m.notification.title, 'Nouvelles'],
    ['big_picture → notification.image', { imageUrl: 'https://cdn.example.com/a.png' }, (m) => m.notification.image, 'https://cdn.example.com/a.png'],
    ['priority 10 → HIGH', { apns: { priority: 10 } }, (m) => m.android.priority, 'HIGH'],
    ['priority 5 → NORMAL', { apns: { priority: 5 } }, (m) => m.android.priority, 'NORMAL'],
    ['priority 1 → NORMAL', { apns: { priority: 1 } }, (m) => m.android.priority, 'NORMAL'],
    ['ttl → "<s>s"', { apns: { ttlSeconds: 3600 } }, (m) => m.android.ttl, '3600s'],
    ['no ttl → 3 days, as Apple gets (not FCM\'s 4 weeks)', {}, (m) => m.android.ttl, '259200s'],
    ['ttl 0 → "0s"', { apns: { ttlSeconds: 0 } }, (m) => m.android.ttl, '0s'],
    ['collapse_id → collapse_key', { apns: { collapseId: 'score' } }, (m) => m.android.collapse_key, 'score'],
    ['android_channel_id → channel_id', { android: { channelId: 'news' } }, (m) => m.android.notification.channel_id, 'news'],
    ['small_icon → icon', { android: { smallIcon: 'ic_stat' } }, (m) => m.android.notification.icon, 'ic_stat'],
    ['android_accent_color AARRGGBB → #RRGGBB', { android: { accentColor: 'FF12ab34' } }, (m) => m.android.notification.color, '#12AB34'],
    ['android_sound → sound', { android: { sound: 'chime' } }, (m) => m.android.notification.sound, 'chime'],
    ['android_group → tag', { android: { group: 'inbox' } }, (m) => m.android.notification.tag, 'inbox'],
    ['url → custom.u', { url: 'myapp://inbox/1' }, (m) => custom(m).u, 'myapp://inbox/1'],
    ['data → custom.a', { data: { order: '12' } }, (m) => custom(m).a, { order: '12' }],
    ['data → each key its own', { data: { order: '12', paid: 'true' } }, (m) => [m.data.order, m.data.paid], ['12', 'true']],
    ['button → data.o', { button: { id: 'reply', text: 'Reply' } }, (m) => JSON.parse(m.data.o), [{ i: 'reply', n: 'Reply' }]],
    ['no android field → no android.notification', {}, (m) => m.android.notification, undefined],
  ];
  for (const [what, extra, read, expected] of rows) {
    it(what, () => expect(read(buildFcmMessage(request(extra), 'fr'))).to.deep.equal(expected));
  }

  it('keeps every data value a string, and a reserved or Herald key only in custom.a', () => {
    const m = buildFcmMessage(request({ data: { from: 'x', 'google.a': 'y', custom: 'z', o: 'w', ok: '1' } }), 'en') as { data: Record<string, unknown> };
    expect(Object.keys(m.data).sort()).to.deep.equal(['custom', 'ok']);
    expect(Object.values(m.data).every((v) => typeof v === 'string')).to.equal(true);
    expect(JSON.parse(m.data.custom as string).a).to.deep.equal({ from: 'x', 'google.a': 'y', custom: 'z', o: 'w', ok: '1' });
  });

  it('a background send (content_available without contents) is data-only with HIGH, whatever the priority', () => {
    const m = buildFcmMessage(request({ contents: {}, apns: { contentAvailable: true, priority: 5, ttlSeconds: 60 }, android: { channelId: 'x' }, data: { k: 'v' } }), 'en', { sendId: 1 });
    expect(m).to.deep.equal({ android: { priority: 'HIGH', ttl: '60s' }, data: { k: 'v', custom: '{"i":"1","a":{"k":"v"}}' } });
  });

  it('content_available with contents still shows the notification', () => {
    expect(buildFcmMessage(request({ apns: { contentAvailable: true } }), 'en').notification).to.deep.equal({ body: 'Hello' });
  });

  it('picks the device language by the contract rule', () => {
    const req = request({ contents: { en: 'Hello', 'pt-BR': 'Olá', pt: 'Oi' } });
    expect((buildFcmMessageForDevice(req, 'pt_BR') as any).notification.body).to.equal('Olá');
    expect((buildFcmMessageForDevice(req, 'pt-PT') as any).notification.body).to.equal('Oi');
    expect((buildFcmMessageForDevice(req, 'de') as any).notification.body).to.equal('Hello');
    expect((buildFcmMessageForDevice(req, undefined) as any).notification.body).to.equal('Hello');
  });

  it('fcmColor: AARRGGBB and RRGGBB, nothing else', () => {
    expect([fcmColor('FF000000'), fcmColor('#00ff00'), fcmColor('abc'), fcmColor('GG000000'), fcmColor(undefined)]).to.deep.equal(['#000000', '#00FF00', undefined, undefined, undefined]);
  });

  it('fcmRequestBody puts the token first in a body equal to JSON.stringify of the whole', () => {
    const m = buildFcmMessage(request({ data: { a: 'b' } }), 'en', { sendId: 3 });
    const token = 'abc:DEF_1.2-3'.repeat(10);
    expect(JSON.parse(fcmRequestBody(JSON.stringify(m), token))).to.deep.equal({ message: { token, ...m } });
  });
});

describe('FCM 4,096 bytes', () => {
  /** A message whose counted bytes are exactly `n`: a body of the right length. */
  const sized = (n: number) => {
    const base = buildFcmMessage(request({ contents: { en: '' } }), 'en', { sendId: PLACEHOLDER_SEND_ID });
    const req = request({ contents: { en: 'x'.repeat(n - fcmMessageBytes(base)) } });
    return { req, message: buildFcmMessage(req, 'en') };
  };

  it('4,096 passes, 4,097 is refused; the token does not count', () => {
    const at = sized(FCM_MAX_MESSAGE_BYTES);
    expect(fcmMessageBytes(at.message)).to.equal(4096);
    expect(fitsFcm({ ...at.message, token: 'a'.repeat(4096) })).to.equal(true);
    expect(largestFcmMessageBytes(at.req)).to.equal(4096);
    const over = sized(FCM_MAX_MESSAGE_BYTES + 1);
    expect(fcmMessageBytes(over.message)).to.equal(4097);
    expect(fitsFcm(over.message)).to.equal(false);
    expect(largestFcmMessageBytes(over.req)).to.equal(4097);
  });

  it('the largest is measured on the longest language, in UTF-8 bytes', () => {
    const req = request({ contents: { en: 'Hi', ja: 'こんにちは'.repeat(100) }, headings: { en: 'T' } });
    expect(largestFcmMessageBytes(req)).to.equal(fcmMessageBytes(buildFcmMessage(req, 'ja')));
    expect(largestFcmMessageBytes(req)).to.be.greaterThan(1500);
  });
});
