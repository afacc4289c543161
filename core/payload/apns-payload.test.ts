import { expect } from 'chai';
import type { SendRequest } from '../send-model/request.js';
import {
  buildApnsPayload,
  buildApnsPayloadForDevice,
  largestPayloadBytes,
  PLACEHOLDER_SEND_ID,
} from './apns-payload.js';

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

describe('buildApnsPayload', () => {
  it('builds the minimal payload: body, sound, send id', () => {
    const json = JSON.parse(buildApnsPayload(request(), 'fr', { sendId: 42 }));
    expect(json).to.deep.equal({
      aps: { alert: { body: 'Bonjour' }, sound: 'default' },
      custom: { i: '42' },
    });
  });

  it('writes a 64-bit send id exactly, as text', () => {
    const json = JSON.parse(buildApnsPayload(request(), 'en', { sendId: 9007199254740993n }));
    expect(json.custom.i).to.equal('9007199254740993');
  });

  it('uses the widest placeholder id when no send id is given', () => {
    expect(JSON.parse(buildApnsPayload(request(), 'en')).custom.i).to.equal(PLACEHOLDER_SEND_ID);
    expect(PLACEHOLDER_SEND_ID).to.have.length(String(2n ** 63n - 1n).length);
  });

  it('takes the title from headings with the language fallback', () => {
    const req = request({ headings: { en: 'News' } });
    expect(JSON.parse(buildApnsPayload(req, 'fr')).aps.alert).to.deep.equal({
      title: 'News',
      body: 'Bonjour',
    });
  });

  it('falls back to the default language for a language not in contents', () => {
    expect(JSON.parse(buildApnsPayload(request(), 'de')).aps.alert.body).to.equal('Hello');
  });

  it('carries url, data, image and button, with mutable-content and category', () => {
    const req = request({
      url: 'myapp://inbox/1',
      data: { order: '12', paid: 'true' },
      imageUrl: 'https://cdn.example.com/a.png',
      button: { id: 'reply', text: 'Reply' },
    });
    expect(JSON.parse(buildApnsPayload(req, 'en', { sendId: 7 }))).to.deep.equal({
      aps: {
        alert: { body: 'Hello' },
        sound: 'default',
        'mutable-content': 1,
        category: 'herald.button',
      },
      custom: {
        i: '7',
        u: 'myapp://inbox/1',
        a: { order: '12', paid: 'true' },
        m: 'https://cdn.example.com/a.png',
        b: { id: 'reply', text: 'Reply' },
      },
    });
  });

  it('sets mutable-content for an image alone, without a category', () => {
    const aps = JSON.parse(buildApnsPayload(request({ imageUrl: 'https://x.test/i.png' }), 'en')).aps;
    expect(aps['mutable-content']).to.equal(1);
    expect(aps).to.not.have.property('category');
  });

  it('sets the badge for SetTo and hands Increase to the extension', () => {
    const set = JSON.parse(
      buildApnsPayload(request({ apns: { badgeType: 'SetTo', badgeCount: 3 } }), 'en'),
    );
    expect(set.aps.badge).to.equal(3);
    expect(set.aps).to.not.have.property('mutable-content');
    const inc = JSON.parse(
      buildApnsPayload(request({ apns: { badgeType: 'Increase', badgeCount: 1 } }), 'en'),
    );
    expect(inc.aps).to.not.have.property('badge');
    expect(inc.aps['mutable-content']).to.equal(1);
    expect(inc.custom.bi).to.equal(1);
    const none = JSON.parse(buildApnsPayload(request({ apns: { badgeType: 'None' } }), 'en'));
    expect(none.aps).to.not.have.property('badge');
  });

  it('picks the device language', () => {
    const req = request({ contents: { en: 'Hi', 'pt-BR': 'Oi', pt: 'Olá' } });
    expect(JSON.parse(buildApnsPayloadForDevice(req, 'pt_BR')).aps.alert.body).to.equal('Oi');
    expect(JSON.parse(buildApnsPayloadForDevice(req, 'pt-PT')).aps.alert.body).to.equal('Olá');
    expect(JSON.parse(buildApnsPayloadForDevice(req, undefined)).aps.alert.body).to.equal('Hi');
  });
});

describe('largestPayloadBytes', () => {
  it('measures UTF-8 bytes of the largest language, not characters', () => {
    // 100 ASCII characters in en, 50 three-byte characters in ja: ja is larger in bytes.
    const req = request({ contents: { en: 'a'.repeat(100), ja: 'あ'.repeat(50) } });
    const ja = Buffer.byteLength(buildApnsPayload(req, 'ja'), 'utf8');
    const en = Buffer.byteLength(buildApnsPayload(req, 'en'), 'utf8');
    expect(ja).to.be.greaterThan(en);
    expect(largestPayloadBytes(req)).to.equal(ja);
  });
});
