// Untrusted JSON: prototype keys and text PostgreSQL cannot store are refused with a 422 naming
// the field; and, as a property, no key added anywhere in a send body changes its target (and so
// its bucket and audience): the send is refused, or it is the same send.
import { expect } from 'chai';
import fc from 'fast-check';
import { checkUntrustedJson, unstorableText } from './untrusted-json.js';
import { validateSendRequest } from './validate-send.js';
import { ValidationError } from '../errors.js';

const APP = { id: '7f0c2c5e-5b7a-4b4e-9a53-4c1a3c9d2b10', bundleId: 'com.example.shop', segmentNames: ['Subscribed Users', 'VIP'] };
const BASE = { app_id: APP.id, include_subscription_ids: ['0b6a0a3e-1c1d-4f43-9a63-2f1d5b2c7e11'], contents: { en: 'Your order shipped' }, data: { order: '42' } };

/** Parses as the api does: JSON text, then the walk, then the send's validation. */
function accept(text: string) {
  const body = checkUntrustedJson(JSON.parse(text));
  return validateSendRequest({ body: body as Record<string, unknown>, app: APP, now: new Date() });
}

const refusal = (fn: () => unknown): ValidationError => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('accepted');
};

describe('untrusted JSON', () => {
  it('refuses __proto__, constructor and prototype keys at any depth, naming the key', () => {
    const e = refusal(() => accept(`{"__proto__": {"included_segments": ["Subscribed Users"]}, ${JSON.stringify(BASE).slice(1)}`));
    expect(e.status).to.equal(422);
    expect(e.messages[0]).to.include('__proto__');
    expect(refusal(() => accept(JSON.stringify({ ...BASE, data: { constructor: { prototype: 1 } } }))).messages[0]).to.include('data.constructor');
    expect(refusal(() => checkUntrustedJson(JSON.parse('[{"a": {"prototype": 1}}]'))).messages[0]).to.include('[0].a.prototype');
  });

  it('refuses U+0000 and unpaired surrogates in values and keys, naming the field', () => {
    expect(refusal(() => accept(JSON.stringify({ ...BASE, contents: { en: 'a\u0000b' } }))).messages[0]).to.match(/^contents\.en contains U\+0000/);
    expect(refusal(() => accept(JSON.stringify({ ...BASE, headings: { en: 'x\uD800' } }))).messages[0]).to.match(/^headings\.en contains an unpaired/);
    expect(refusal(() => accept(JSON.stringify({ ...BASE, include_subscription_ids: ['a', '\uDC00'] }))).messages[0]).to.include('include_subscription_ids[1]');
    expect(refusal(() => checkUntrustedJson({ tags: { ['k\u0000']: 'v' } })).messages[0]).to.include('in tags');
    expect(unstorableText('emoji 🎉 and é')).to.equal(undefined);
  });

  it('property: no added key, at any place, changes a send’s target', () => {
    const base = accept(JSON.stringify(BASE));
    const key = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', 'included_segments', 'tag'), fc.string({ maxLength: 12 }));
    const value = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant({ included_segments: ['Subscribed Users'] }), fc.constant({ tag: { key: 'a', relation: 'exists' } }));
    fc.assert(
      fc.property(key, value, fc.constantFrom('top', 'data', 'contents'), (k, v, where) => {
        const entry = `${JSON.stringify(k)}: ${JSON.stringify(v)}`;
        // The key is written first, so a name the body already has is overridden by the body's own.
        const text =
          where === 'top'
            ? `{${entry}, ${JSON.stringify(BASE).slice(1)}`
            : JSON.stringify(BASE).replace(`"${where}":{`, () => `"${where}":{${entry},`);
        let got;
        try {
          got = accept(text);
        } catch (error) {
          if (error instanceof ValidationError) return true; // refused: nothing sent
          throw error;
        }
        expect(got.target).to.deep.equal(base.target);
        return true;
      }),
      { numRuns: 500 },
    );
  });
});
