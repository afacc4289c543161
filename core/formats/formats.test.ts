// The shared formats at their edges: each check and the pattern string the schemas use must
// accept and refuse the same texts (ajv compiles the pattern as `new RegExp(pattern, 'u')`).
import { expect } from 'chai';
import { isUuid, UUID_LENGTH, UUID_PATTERN } from './uuid.js';
import { isLanguageCode, LANGUAGE_CODE_PATTERN } from './language-code.js';
import { IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENCY_KEY_PATTERN, IDEMPOTENCY_KEY_SCHEMA, isIdempotencyKey } from './idempotency-key.js';

/** What a JSON Schema with this pattern (and maxLength) accepts. */
const schemaAccepts = (pattern: string, text: string, maxLength = Infinity) => text.length <= maxLength && new RegExp(pattern, 'u').test(text);

interface Format {
  name: string;
  check: (text: string) => boolean;
  pattern: string;
  maxLength?: number;
  accepted: string[];
  refused: string[];
}

const FORMATS: Format[] = [
  {
    name: 'UUID',
    check: isUuid,
    pattern: UUID_PATTERN,
    maxLength: UUID_LENGTH,
    accepted: ['5b0b6f2e-0f55-4c3c-9d0b-1f0a0e6f6c11', '5B0B6F2E-0F55-4C3C-9D0B-1F0A0E6F6C11', '00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff'],
    refused: [
      '',
      '5b0b6f2e-0f55-4c3c-9d0b-1f0a0e6f6c1', // one digit short
      '5b0b6f2e-0f55-4c3c-9d0b-1f0a0e6f6c111', // one digit over
      '5b0b6f2e0f554c3c9d0b1f0a0e6f6c11', // no dashes
      '{5b0b6f2e-0f55-4c3c-9d0b-1f0a0e6f6c11}',
      '5b0b6f2e-0f55-4c3c-9d0b-1f0a0e6f6c1g', // not hex
      ' 5b0b6f2e-0f55-4c3c-9d0b-1f0a0e6f6c11',
      '5b0b6f2e-0f55-4c3c-9d0b-1f0a0e6f6c11\n',
    ],
  },
  {
    name: 'language code',
    check: isLanguageCode,
    pattern: LANGUAGE_CODE_PATTERN,
    accepted: ['en', 'pt-BR', 'zh-Hans', 'sr-Latn', 'en-us', 'xx-Abcd'],
    refused: ['', 'e', 'eng', 'EN', 'En', 'pt-', 'pt-B', 'zh-Hansx', 'pt_BR', 'es-419', 'en-US-x', ' en', 'en\n'],
  },
  {
    name: 'idempotency key',
    check: isIdempotencyKey,
    pattern: IDEMPOTENCY_KEY_PATTERN,
    maxLength: IDEMPOTENCY_KEY_MAX_LENGTH,
    accepted: ['a', 'order-12', 'order_12.v2', 'A1', 'k'.repeat(80), '-', '...'],
    refused: ['', 'k'.repeat(81), 'order 12', 'order/12', 'ключ', 'a\n', 'a+b'],
  },
];

describe('shared formats', () => {
  for (const f of FORMATS) {
    describe(f.name, () => {
      for (const text of f.accepted) {
        it(`accepts ${JSON.stringify(text.length > 40 ? `${text.slice(0, 8)}… (${text.length})` : text)}`, () => {
          expect(f.check(text)).to.equal(true);
          expect(schemaAccepts(f.pattern, text, f.maxLength)).to.equal(true);
        });
      }
      for (const text of f.refused) {
        it(`refuses ${JSON.stringify(text.length > 40 ? `${text.slice(0, 8)}… (${text.length})` : text)}`, () => {
          expect(f.check(text)).to.equal(false);
          expect(schemaAccepts(f.pattern, text, f.maxLength)).to.equal(false);
        });
      }
    });
  }

  it('the idempotency key schema is the header’s and the body’s rule', () => {
    expect(IDEMPOTENCY_KEY_SCHEMA).to.deep.equal({ type: 'string', maxLength: 80, pattern: IDEMPOTENCY_KEY_PATTERN });
  });
});
