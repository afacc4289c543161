import { expect } from 'chai';
import { readData } from './send-content.js';
import { problems, validate } from './helpers.test-support.js';

describe('contents and headings', () => {
  it('counts 2,000 characters in code points: 2,000 emoji pass the length rule', () => {
    // 4,000 UTF-16 units but 2,000 code points: only the 4 KB rule (8,000 bytes) refuses it, on both platforms.
    expect(problems(() => validate({ contents: { en: '😀'.repeat(2000) } }))).to.deep.equal([
      'This notification is larger than 4KB for both iOS and Android. It is not cut short.',
    ]);
    expect(problems(() => validate({ contents: { en: '😀'.repeat(2000) }, isAndroid: false }))).to.deep.equal([
      'This notification is larger than 4KB. It is not cut short.',
    ]);
  });

  it('accepts 2,000 characters', () => {
    expect(validate({ contents: { en: 'a'.repeat(2000) } }).contents.en).to.have.length(2000);
  });

  const refused: Array<[string, Record<string, unknown>, string]> = [
    ['contents over 2,000', { contents: { en: 'a'.repeat(2001) } }, 'contents.en is longer than 2,000 characters (2001).'],
    ['contents over 2,000 code points', { contents: { fr: '😀'.repeat(2001) } }, 'contents.fr is longer than 2,000 characters (2001).'],
    ['headings over 120', { headings: { en: 'h'.repeat(121) } }, 'headings.en is longer than 120 characters (121).'],
    ['a language key in capitals', { contents: { EN: 'Hello' } }, 'contents has "EN", which is not a language code such as en, pt-BR or zh-Hans.'],
    ['a language key with an underscore', { contents: { en: 'Hi', pt_BR: 'Oi' } }, 'contents has "pt_BR", which is not a language code such as en, pt-BR or zh-Hans.'],
    ['a heading language key too long', { headings: { english: 'x' } }, 'headings has "english", which is not a language code such as en, pt-BR or zh-Hans.'],
    ['no language', { contents: {} }, 'contents needs the message text in at least one language.'],
    ['only empty texts', { contents: { en: '', fr: '  ' } }, 'contents needs the message text in at least one language.'],
  ];
  for (const [name, changes, message] of refused) {
    it(`refuses ${name}`, () => {
      expect(problems(() => validate(changes))).to.deep.equal([message]);
    });
  }

  const languages: Array<[string, Record<string, string>, string]> = [
    ['en when present, even if not first', { fr: 'Bonjour', en: 'Hello' }, 'en'],
    ['else the first language', { 'pt-BR': 'Oi', fr: 'Salut' }, 'pt-BR'],
    ['skipping an empty en', { en: '', 'zh-Hans': '你好' }, 'zh-Hans'],
  ];
  for (const [name, contents, expected] of languages) {
    it(`default language: ${name}`, () => {
      expect(validate({ contents }).defaultLanguage).to.equal(expected);
    });
  }

  it('drops empty languages from contents and headings', () => {
    const req = validate({ contents: { en: 'Hi', fr: '' }, headings: { en: ' ' } });
    expect(req.contents).to.deep.equal({ en: 'Hi' });
    expect(req).to.not.have.property('headings');
  });

  it('accepts headings in languages beyond contents, and 120 characters', () => {
    const req = validate({ headings: { en: 'h'.repeat(120), de: 'Titel' } });
    expect(req.headings).to.deep.equal({ en: 'h'.repeat(120), de: 'Titel' });
  });
});

describe('url and app_url', () => {
  const accepted: Array<[Record<string, unknown>, string]> = [
    [{ url: 'https://example.com/a?b=1' }, 'https://example.com/a?b=1'],
    [{ url: 'myapp://inbox/3' }, 'myapp://inbox/3'],
    [{ app_url: 'com.example.news:/article/9' }, 'com.example.news:/article/9'],
    [{ url: 'myapp://x', app_url: 'myapp://x' }, 'myapp://x'],
    [{ url: 'https://e.com/' + 'a'.repeat(480) }, 'https://e.com/' + 'a'.repeat(480)], // 494
  ];
  for (const [changes, url] of accepted) {
    it(`accepts ${JSON.stringify(changes).slice(0, 70)}`, () => {
      expect(validate(changes).url).to.equal(url);
    });
  }

  const refused: Array<[Record<string, unknown>, string]> = [
    [{ url: 'https://e.com/' + 'a'.repeat(487) }, 'url is longer than 500 characters.'],
    [{ url: 'http://example.com' }, 'url may not use the http: scheme; use https or an address handled by the app.'],
    [{ url: 'javascript:alert(1)' }, 'url may not use the javascript: scheme; use https or an address handled by the app.'],
    [{ app_url: 'data:text/html,hi' }, 'app_url may not use the data: scheme; use https or an address handled by the app.'],
    [{ url: 'FILE:///etc/passwd' }, 'url may not use the file: scheme; use https or an address handled by the app.'],
    [{ url: 'example.com/page' }, 'url must be an https address or an address handled by the app, such as myapp://inbox.'],
    [{ url: 'myapp://a b' }, 'url must be an https address or an address handled by the app, such as myapp://inbox.'],
    [{ url: 'https://' }, 'url is not a valid https address.'],
    [{ url: 'https://a.com/x', app_url: 'https://a.com/y' }, 'url and app_url differ. Send one link.'],
  ];
  for (const [changes, message] of refused) {
    it(`refuses ${JSON.stringify(changes).slice(0, 70)}`, () => {
      expect(problems(() => validate(changes))).to.deep.equal([message]);
    });
  }
});

describe('big_picture and ios_attachments', () => {
  const image = 'https://cdn.example.com/p.png';
  it('accepts either, or both when equal', () => {
    expect(validate({ big_picture: image }).imageUrl).to.equal(image);
    expect(validate({ ios_attachments: { id: image } }).imageUrl).to.equal(image);
    expect(validate({ big_picture: image, ios_attachments: { pic: image } }).imageUrl).to.equal(image);
  });

  const refused: Array<[Record<string, unknown>, string]> = [
    [{ big_picture: 'http://cdn.example.com/p.png' }, 'big_picture must be an https image address.'],
    [{ big_picture: 'myapp://p.png' }, 'big_picture must be an https image address.'],
    [{ ios_attachments: { id: 'http://x.com/p.png' } }, 'ios_attachments must hold an https image address.'],
    [{ ios_attachments: {} }, 'ios_attachments must hold exactly one image, such as {"id": "https://…"}.'],
    [{ ios_attachments: { a: image, b: image } }, 'ios_attachments must hold exactly one image, such as {"id": "https://…"}.'],
    [{ big_picture: image, ios_attachments: { id: 'https://cdn.example.com/q.png' } }, 'big_picture and ios_attachments differ. Send one image.'],
  ];
  for (const [changes, message] of refused) {
    it(`refuses ${JSON.stringify(changes).slice(0, 80)}`, () => {
      expect(problems(() => validate(changes))).to.deep.equal([message]);
    });
  }
});

describe('data: sent as text, cut, never refused', () => {
  it('stringifies numbers, booleans and objects, and drops nulls', () => {
    const req = validate({ data: { n: 12, f: 1.5, b: false, o: { a: [1, 'x'] }, l: [1], s: 'text', z: null } });
    expect(req.data).to.deep.equal({ n: '12', f: '1.5', b: 'false', o: '{"a":[1,"x"]}', l: '[1]', s: 'text' });
  });

  it('cuts keys to 40 and values to 2,000 characters', () => {
    const key = 'k'.repeat(39) + '😀' + 'tail';
    // iOS only: FCM counts a data value twice (its own key and custom.a), 4,000 bytes here.
    const req = validate({ data: { [key]: 'v'.repeat(2500) }, isAndroid: false });
    expect(req.data).to.deep.equal({ ['k'.repeat(39) + '😀']: 'v'.repeat(2000) });
  });

  it('cuts values in code points, never splitting an emoji', () => {
    const data = readData({ data: { k: 'a' + '😀'.repeat(2500) } }, []);
    expect(data!.k).to.equal('a' + '😀'.repeat(1999));
  });

  it('keeps the first value when two keys are equal once cut', () => {
    const req = validate({ data: { ['a'.repeat(40) + '1']: 'first', ['a'.repeat(40) + '2']: 'second' } });
    expect(req.data).to.deep.equal({ ['a'.repeat(40)]: 'first' });
  });

  it('keeps a "__proto__" key as a plain key', () => {
    const req = validate({ data: JSON.parse('{"__proto__": "x"}') });
    expect(Object.keys(req.data!)).to.deep.equal(['__proto__']);
    expect(Object.getPrototypeOf(req.data)).to.equal(Object.prototype);
  });

  it('leaves out an empty data', () => {
    expect(validate({ data: {} })).to.not.have.property('data');
  });
});

describe('buttons', () => {
  it('accepts one button with id and text of 40 characters', () => {
    const button = { id: 'i'.repeat(40), text: '😀'.repeat(40) };
    expect(validate({ buttons: [button] }).button).to.deep.equal(button);
  });

  it('accepts an empty list as no button', () => {
    expect(validate({ buttons: [] })).to.not.have.property('button');
  });

  const refused: Array<[string, unknown, string]> = [
    ['two buttons', [{ id: 'a', text: 'A' }, { id: 'b', text: 'B' }], 'Send one button.'],
    ['an id over 40', [{ id: 'i'.repeat(41), text: 'A' }], 'buttons[0].id is longer than 40 characters.'],
    ['a text over 40', [{ id: 'a', text: 't'.repeat(41) }], 'buttons[0].text is longer than 40 characters.'],
    ['an empty text', [{ id: 'a', text: '' }], 'buttons[0].text must not be empty.'],
  ];
  for (const [name, buttons, message] of refused) {
    it(`refuses ${name}`, () => {
      expect(problems(() => validate({ buttons }))).to.deep.equal([message]);
    });
  }
});

describe('bundle_id', () => {
  it("accepts the app's bundle id", () => {
    expect(() => validate({ bundle_id: 'com.example.news' })).to.not.throw();
  });
  it('refuses another bundle id', () => {
    expect(problems(() => validate({ bundle_id: 'com.example.other' }))).to.deep.equal([
      "bundle_id is not this app's bundle id (com.example.news).",
    ]);
  });
});

describe('APNs options from OneSignal fields', () => {
  const cases: Array<[Record<string, unknown>, unknown]> = [
    [{ ttl: 0 }, { ttlSeconds: 0 }],
    [{ priority: 7 }, { priority: 10 }],
    [{ priority: 6 }, { priority: 5 }],
    [{ collapse_id: 'c'.repeat(64) }, { collapseId: 'c'.repeat(64) }],
    [{ ios_badgeType: 'Increase', ios_badgeCount: -1 }, { badgeType: 'Increase', badgeCount: -1 }],
    [{ ios_badgeType: 'None' }, { badgeType: 'None' }],
    [{ ios_badgeCount: 3 }, {}],
  ];
  for (const [changes, apns] of cases) {
    it(`maps ${JSON.stringify(changes).slice(0, 60)}`, () => {
      expect(validate(changes).apns).to.deep.equal(apns);
    });
  }

  const refused: Array<[Record<string, unknown>, string]> = [
    [{ collapse_id: 'c'.repeat(65) }, 'collapse_id must be printable ASCII (letters, digits, space and punctuation), at most 64 bytes.'],
    [{ collapse_id: 'café-promo' }, 'collapse_id must be printable ASCII (letters, digits, space and punctuation), at most 64 bytes.'],
    [{ ios_badgeType: 'SetTo' }, 'ios_badgeCount is required with ios_badgeType SetTo.'],
    [{ ios_badgeType: 'SetTo', ios_badgeCount: -1 }, 'ios_badgeCount must be 0 or more with ios_badgeType SetTo.'],
  ];
  for (const [changes, message] of refused) {
    it(`refuses ${JSON.stringify(changes).slice(0, 60)}`, () => {
      expect(problems(() => validate(changes))).to.deep.equal([message]);
    });
  }
});
