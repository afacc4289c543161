// The accepted APNs token at its edges (7, 8, 200 and 201 hex digits), read the same by the
// check, the install schema and the NDJSON import (the Live Activity calls: test/api and
// test/delivery/long-tokens.test.ts); and no second definition of the rule anywhere in the sources (issue 26: the
// api took 200 digits while the transport stopped at 100).
import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Ajv } from 'ajv';
import { DEVICE_TOKEN_MAX_HEX, DEVICE_TOKEN_MIN_HEX, DEVICE_TOKEN_PATTERN, DEVICE_TOKEN_SCHEMA, deviceTokenRule, isDeviceToken } from './device-token.js';
import { SUBSCRIPTION_FIELDS } from '../validation/subscription-schema.js';
import { TOKEN_BY_TYPE_SCHEMA } from './install-type.js';
import { toCopyRow } from '../users/import-installs.js';

const ACCEPTED = ['a'.repeat(DEVICE_TOKEN_MIN_HEX), 'ab'.repeat(32), 'AB'.repeat(32), 'f'.repeat(128), '0'.repeat(DEVICE_TOKEN_MAX_HEX)];
const REFUSED = ['', 'a'.repeat(DEVICE_TOKEN_MIN_HEX - 1), '0'.repeat(DEVICE_TOKEN_MAX_HEX + 1), `${'ab'.repeat(32)}g`, ` ${'ab'.repeat(32)}`, `${'ab'.repeat(32)}\n`, 'ab'.repeat(16) + '-' + 'ab'.repeat(16)];
const name = (t: string) => JSON.stringify(t.length > 20 ? `${t.slice(0, 6)}… (${t.length})` : t);

describe('core/formats/device-token: the accepted APNs token', () => {
  const ajv = new Ajv({ allowUnionTypes: true });
  // The register call's schema: the token follows the type, iOSPush when absent.
  const register = ajv.compile({ type: 'object', properties: SUBSCRIPTION_FIELDS, ...TOKEN_BY_TYPE_SCHEMA });
  const consumers: Array<[string, (t: string) => boolean]> = [
    ['isDeviceToken', isDeviceToken],
    ['the install schema (SUBSCRIPTION_FIELDS with the type\'s rule, no type)', (t) => register({ token: t })],
    ['the install schema (SUBSCRIPTION_FIELDS with the type\'s rule, iOSPush)', (t) => register({ type: 'iOSPush', token: t })],
    ['the NDJSON import', (t) => 'row' in toCopyRow(JSON.stringify({ token: t }))],
  ];
  for (const [who, accepts] of consumers) {
    it(`${who}: accepts ${ACCEPTED.map(name).join(', ')}; refuses ${REFUSED.map(name).join(', ')}`, () => {
      expect(ACCEPTED.filter((t) => !accepts(t)), 'refused').to.deep.equal([]);
      expect(REFUSED.filter(accepts), 'accepted').to.deep.equal([]);
    });
  }

  it('the JSON Schema is the pattern, and the sentence names the field and the lengths', () => {
    expect(DEVICE_TOKEN_SCHEMA).to.deep.equal({ type: 'string', pattern: DEVICE_TOKEN_PATTERN });
    expect(deviceTokenRule('push_token', "the Live Activity's APNs token")).to.equal("push_token must be the Live Activity's APNs token in hex, 8 to 200 digits (0-9, a-f)");
    expect(toCopyRow(JSON.stringify({ token: 'a'.repeat(201) }))).to.deep.equal({ problem: 'token must be the APNs device token in hex, 8 to 200 digits (0-9, a-f)' });
  });

  it('no other source file states the token rule (a hex pattern with a range of lengths)', () => {
    const root = join(import.meta.dirname, '../..');
    const found: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir)) {
        if (entry === 'node_modules' || entry.startsWith('.') || entry === 'dist') continue;
        const path = join(dir, entry);
        if (statSync(path).isDirectory()) walk(path);
        else if (/\.ts$/.test(entry) && !entry.endsWith('.test.ts') && !path.startsWith(join(root, 'test'))) {
          const text = readFileSync(path, 'utf8');
          // [0-9a-fA-F]{8,200}, [0-9a-f]{8,200} and the like: a hex run long enough to be a token
          // (an IPv6 group's [0-9a-f]{1,4} is not one).
          const ranges = [...text.matchAll(/\[0-9a-f(?:A-F)?\]\{\d+,(\d+)\}/g)];
          if (ranges.some((m) => Number(m[1]) >= 32)) found.push(relative(root, path));
        }
      }
    };
    for (const top of ['api', 'apns-sim', 'cli', 'controller', 'core', 'sender']) walk(join(root, top));
    // core/subscriptions/find.ts: a token *prefix* (4 to 200 digits) for the audience search.
    expect(found.filter((f) => f !== 'core/subscriptions/find.ts')).to.deep.equal([]);
  });
});
