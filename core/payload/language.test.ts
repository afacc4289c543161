import { expect } from 'chai';
import { pickLanguage, textFor } from './language.js';

describe('pickLanguage', () => {
  const req = {
    contents: { en: 'Hello', pt: 'Olá', 'pt-BR': 'Oi', 'zh-Hans': '你好', fr: 'Bonjour' },
    defaultLanguage: 'en',
  };
  const cases: Array<[string | undefined, string]> = [
    ['pt-BR', 'pt-BR'],
    ['pt_BR', 'pt-BR'],
    ['pt-br', 'pt-BR'],
    ['pt-PT', 'pt'],
    ['pt', 'pt'],
    ['zh-Hans-CN', 'zh-Hans'],
    ['fr-CA', 'fr'],
    ['de', 'en'],
    ['de-AT', 'en'],
    ['', 'en'],
    [undefined, 'en'],
  ];
  for (const [device, expected] of cases) {
    it(`device ${JSON.stringify(device)} gets ${expected}`, () => {
      expect(pickLanguage(req, device)).to.equal(expected);
    });
  }

  it('falls back to the default language, which need not be en', () => {
    const onlyPtBr = { contents: { 'pt-BR': 'Oi', es: 'Hola' }, defaultLanguage: 'pt-BR' };
    expect(pickLanguage(onlyPtBr, 'pt')).to.equal('pt-BR'); // bare pt has no entry: default
    expect(pickLanguage(onlyPtBr, 'es-MX')).to.equal('es');
    expect(pickLanguage(onlyPtBr, 'ja')).to.equal('pt-BR');
  });
});

describe('textFor (headings)', () => {
  const headings = { en: 'News', pt: 'Notícias' };
  it('uses the language, then its bare language, then the default language', () => {
    expect(textFor(headings, 'pt-BR', 'en')).to.equal('Notícias');
    expect(textFor(headings, 'fr', 'en')).to.equal('News');
    expect(textFor({ fr: 'Infos' }, 'de', 'en')).to.equal(undefined);
    expect(textFor(undefined, 'en', 'en')).to.equal(undefined);
  });
});
