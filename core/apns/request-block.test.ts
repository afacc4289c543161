// The lean transport's request header blocks, read back by an HPACK decoder we did not write
// (hpack.js, Fedor Indutny's, as spdy uses it): RFC 7541 §5.1 integers for every length — a
// header value of 0 to 4,096 bytes, dynamic-table indexes past 127, size updates — over a
// connection's whole sequence of blocks, so our model of the peer's table is checked too. Until
// issue 26 a value of 127 bytes or more had its length written as one byte, which a peer reads as
// a Huffman flag and garbage (Node's server: GOAWAY COMPRESSION_ERROR).
import { expect } from 'chai';
import fc from 'fast-check';
import { createRequire } from 'node:module';
import { encodeInt, HpackDecoder, intLength, writeInt, type HeaderList } from './hpack.js';
import { RequestEncoder, requestPath, varyingFieldsBound, writePseudoFields, writeVaryingFields } from './request-block.js';
import { frameProblem, MAX_FIELD_VALUE_BYTES } from './field-values.js';
import type { ApnsMessage } from './types.js';
import { ValidationError } from '../errors.js';
import { LIMITS } from '../validation/limits.js';
import { validate } from '../validation/helpers.test-support.js';

interface HpackJsDecoder {
  push(chunk: Buffer): void;
  skipBits(n: number): void;
  decodeInt(): number;
  isEmpty(): boolean;
}
interface HpackJsDecompressor {
  write(chunk: Buffer): void;
  execute(): void;
  read(): { name: string; value: string } | null;
  on(event: 'error', listener: (err: Error) => void): void;
}
const hpackJs = createRequire(import.meta.url)('hpack.js') as {
  decompressor: { create(o: { table: { maxSize: number } }): HpackJsDecompressor };
  decoder: { create(): HpackJsDecoder };
};
const failures = new WeakMap<HpackJsDecompressor, Error[]>();
/** hpack.js's decoder for one connection (a 4,096-byte table, what we advertise and it takes). */
function connectionDecoder(): HpackJsDecompressor {
  const d = hpackJs.decompressor.create({ table: { maxSize: 4096 } });
  const seen: Error[] = [];
  d.on('error', (err) => seen.push(err));
  failures.set(d, seen);
  return d;
}

/** hpack.js's reading of one block; its state (the dynamic table) carries over to the next. */
function theirs(d: HpackJsDecompressor, block: Buffer): HeaderList {
  d.write(block);
  d.execute();
  const failure = failures.get(d)?.shift();
  if (failure) throw failure;
  const out: HeaderList = [];
  for (let h = d.read(); h !== null; h = d.read()) out.push([h.name, h.value]);
  return out;
}

/** One request block as connection.ts frames it: size update, pseudo fields, batch prefix, the rest. */
function block(e: RequestEncoder, m: ApnsMessage, fields: HeaderList, key: string, contentLength: number): Buffer {
  const prefix = e.prefix(key, fields);
  const lead = e.leading() ?? Buffer.alloc(0);
  const bound = lead.length + prefix.length + varyingFieldsBound(m, contentLength);
  const buf = Buffer.alloc(bound + 64, 0xee); // slack that must stay untouched
  let at = lead.copy(buf, 0);
  at = writePseudoFields(buf, at, m);
  at += prefix.copy(buf, at);
  at = writeVaryingFields(buf, at, m, contentLength);
  expect(at, 'the bound is exact').to.equal(bound);
  expect(buf.subarray(bound).every((b) => b === 0xee)).to.equal(true);
  return buf.subarray(0, at);
}

function expected(m: ApnsMessage, fields: HeaderList, contentLength: number): HeaderList {
  const out: HeaderList = [[':method', 'POST'], [':scheme', 'https'], [':path', `/3/device/${m.token}`], ...fields];
  if (m.apnsId) out.push(['apns-id', m.apnsId]);
  if (m.expiration !== undefined) out.push(['apns-expiration', String(m.expiration)]);
  out.push(['content-length', String(contentLength)]);
  return out;
}

const visible = (min: number, max: number) => fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: min, maxLength: max });
/** A field value: visible ASCII with inner spaces (never at either end). */
const fieldValue = (max: number) => fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: max }).map((s) => s.trim());
/** Lengths around every boundary of a 4-, 5-, 6- and 7-bit prefix and of the continuation bytes. */
const EDGE_LENGTHS = [0, 1, 14, 15, 16, 30, 31, 32, 62, 63, 64, 126, 127, 128, 129, 254, 255, 256, 4095, MAX_FIELD_VALUE_BYTES];

describe('core/apns request block read by hpack.js (RFC 7541 §5.1)', function () {
  it('writes integers as RFC 7541 C.1 does: 10 and 1337 with a 5-bit prefix, 42 with an 8-bit one', () => {
    expect(encodeInt(10, 5, 0)).to.deep.equal([0x0a]);
    expect(encodeInt(1337, 5, 0)).to.deep.equal([0x1f, 0x9a, 0x0a]);
    expect(encodeInt(42, 8, 0)).to.deep.equal([0x2a]);
  });

  it('property: every integer with every prefix (1 to 8 bits) reads back in hpack.js, in intLength bytes, flags kept', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 0, max: 2 ** 21 }), fc.nat(255), (bits, value, rawFlags) => {
        const flags = rawFlags & ~((1 << bits) - 1) & 0xff;
        const buf = Buffer.alloc(8);
        const end = writeInt(buf, 0, value, bits, flags);
        expect(end).to.equal(intLength(value, bits));
        expect(buf[0] & ~((1 << bits) - 1) & 0xff).to.equal(flags);
        const d = hpackJs.decoder.create();
        d.push(buf.subarray(0, end));
        if (bits < 8) d.skipBits(8 - bits);
        expect(d.decodeInt()).to.equal(value);
        expect(d.isEmpty(), 'no byte left over').to.equal(true);
      }),
      { numRuns: 3000, examples: [[7, 126, 0], [7, 127, 0], [7, 128, 0], [7, 255, 0], [4, 15, 0], [5, 31, 0x20], [6, 63, 0x40], [7, 4096, 0x80]] },
    );
  });

  it('property: a connection of requests with values of 0 to 4,096 bytes reads back field for field, and our decoder agrees', () => {
    const message = fc.record({
      token: fc.oneof(visible(0, MAX_FIELD_VALUE_BYTES), fc.constantFrom(...EDGE_LENGTHS).map((n) => 'a'.repeat(n))),
      apnsId: fc.option(fc.oneof(fieldValue(MAX_FIELD_VALUE_BYTES), fc.constantFrom(...EDGE_LENGTHS).map((n) => 'b'.repeat(n))), { nil: undefined }),
      expiration: fc.option(fc.integer({ min: 0, max: 2 ** 31 }), { nil: undefined }),
      collapseId: fc.option(fc.oneof(fieldValue(200), fc.constantFrom(...EDGE_LENGTHS).map((n) => 'c'.repeat(n))), { nil: undefined }),
      pushType: fc.constantFrom('alert', 'background', 'liveactivity'),
      contentLength: fc.integer({ min: 0, max: 100_000 }),
    });
    const step = fc.record({ m: message, tableSize: fc.option(fc.constantFrom(0, 64, 100, 256, 4096, 65_536), { nil: undefined, freq: 8 }) });
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 12 }), visible(0, 300), (steps, authorization) => {
        const e = new RequestEncoder();
        const d = connectionDecoder();
        const ours = new HpackDecoder(4096);
        for (const { m: r, tableSize } of steps) {
          if (tableSize !== undefined) e.setPeerTableSize(tableSize);
          const m: ApnsMessage = { token: r.token, payload: '', apnsId: r.apnsId, expiration: r.expiration, collapseId: r.collapseId };
          expect(frameProblem(m), 'the generator makes only framable messages').to.equal(undefined);
          const fields: HeaderList = [[':authority', 'api.push.apple.com'], ['apns-topic', 'com.example.app'], ['apns-push-type', r.pushType]];
          if (r.collapseId !== undefined) fields.push(['apns-collapse-id', r.collapseId]);
          fields.push(['authorization', `bearer ${authorization}`]);
          const bytes = block(e, m, fields, `${r.pushType}|${r.collapseId ?? '\0'}`, r.contentLength);
          const want = expected(m, fields, r.contentLength);
          expect(theirs(d, bytes)).to.deep.equal(want);
          expect(ours.decode(bytes)).to.deep.equal(want);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a broadcast (issue 29) reads back: :path /4/broadcasts/apps/<bundle id>, apns-channel-id of 0 to 4,096 bytes, no apns-topic, between device requests on one connection', () => {
    const e = new RequestEncoder();
    const d = connectionDecoder();
    const ours = new HpackDecoder(4096);
    const device: HeaderList = [[':authority', 'api.push.apple.com'], ['apns-topic', 'com.example.app.push-type.liveactivity'], ['apns-push-type', 'liveactivity'], ['authorization', 'bearer x']];
    const broadcast: HeaderList = [[':authority', 'api.push.apple.com'], ['apns-push-type', 'liveactivity'], ['authorization', 'bearer x']];
    for (const length of EDGE_LENGTHS) {
      const channelId = 'C'.repeat(length);
      const m: ApnsMessage = { token: '', payload: '', channelId, expiration: 0 };
      const path = requestPath(m, 'com.example.app');
      expect(path).to.equal('/4/broadcasts/apps/com.example.app');
      const prefix = e.prefix('broadcast', broadcast);
      const lead = e.leading() ?? Buffer.alloc(0);
      const bound = lead.length + prefix.length + varyingFieldsBound(m, 321, path);
      const buf = Buffer.alloc(bound);
      let at = lead.copy(buf, 0);
      at = writePseudoFields(buf, at, m, path);
      at += prefix.copy(buf, at);
      at = writeVaryingFields(buf, at, m, 321);
      expect(at, 'the bound is exact').to.equal(bound);
      const want: HeaderList = [[':method', 'POST'], [':scheme', 'https'], [':path', path], ...broadcast, ['apns-channel-id', channelId], ['apns-expiration', '0'], ['content-length', '321']];
      expect(theirs(d, buf)).to.deep.equal(want);
      expect(ours.decode(buf)).to.deep.equal(want);
      // A device request after it, on the same connection (the table carries over).
      const token = 'ab'.repeat(50);
      const next = block(e, { token, payload: '' }, device, 'device', 10);
      expect(theirs(d, next)).to.deep.equal(expected({ token, payload: '' }, device, 10));
      expect(ours.decode(next)).to.deep.equal(expected({ token, payload: '' }, device, 10));
    }
  });

  it('dynamic-table indexes past 127 (a 7-bit prefix and a continuation byte) read back', () => {
    const e = new RequestEncoder();
    const d = connectionDecoder();
    // 120 one-field prefixes of about 50 bytes each: the table keeps the newest ~80, so the one
    // entered 70 prefixes before the last is at index 62 + 70 = 132.
    const all: HeaderList[] = Array.from({ length: 120 }, (_, i) => [['apns-collapse-id', i.toString(36)]]);
    for (const [i, fields] of all.entries()) expect(theirs(d, e.prefix(`k${i}`, fields))).to.deep.equal(fields);
    const again = e.prefix('k49', all[49]);
    expect([...again], 'index 132: 0x80 | 127, then 5').to.deep.equal([0xff, 0x05]);
    expect(theirs(d, again)).to.deep.equal(all[49]);
  });
});

describe('core/apns field values the transport cannot frame', function () {
  it('property: every collapse_id the api accepts frames (one header value rule: core/formats/header-value.ts)', () => {
    const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: LIMITS.collapse_id_bytes });
    fc.assert(
      fc.property(printable, (collapseId) => {
        let accepted: string | undefined;
        try {
          accepted = validate({ collapse_id: collapseId }).apns.collapseId;
        } catch (error) {
          if (!(error instanceof ValidationError)) throw error;
          return;
        }
        if (accepted !== undefined) expect(frameProblem({ token: 'ab'.repeat(32), payload: '{}', collapseId: accepted }), JSON.stringify(accepted)).to.equal(undefined);
      }),
      { numRuns: 2000, examples: [['a '], [' a'], [' '], ['a b'], ['c'.repeat(LIMITS.collapse_id_bytes)]] },
    );
  });


  const cases: Array<[string, Partial<ApnsMessage>, string | undefined]> = [
    ['a 200-digit token', { token: 'ab'.repeat(100) }, undefined],
    [`a ${MAX_FIELD_VALUE_BYTES}-byte token`, { token: 'a'.repeat(MAX_FIELD_VALUE_BYTES) }, undefined],
    [`a ${MAX_FIELD_VALUE_BYTES + 1}-byte token`, { token: 'a'.repeat(MAX_FIELD_VALUE_BYTES + 1) }, `the token (:path) is ${MAX_FIELD_VALUE_BYTES + 1} bytes, over ${MAX_FIELD_VALUE_BYTES}`],
    ['a token with a line feed', { token: 'ab\ncd' }, 'the token (:path) holds a byte HTTP/2 does not allow there'],
    ['a token with a space', { token: 'ab cd' }, 'the token (:path) holds a byte HTTP/2 does not allow there'],
    ['a token with a non-ASCII character', { token: 'abcdé' }, 'the token (:path) holds a byte HTTP/2 does not allow there'],
    ['an apns-id with a carriage return', { apnsId: 'x\ry' }, 'apns-id holds a byte HTTP/2 does not allow there'],
    ['a collapse id with an inner space', { collapseId: 'a b' }, undefined],
    ['a collapse id ending in a space', { collapseId: 'ab ' }, 'apns-collapse-id holds a byte HTTP/2 does not allow there'],
    ['a collapse id with a NUL', { collapseId: 'a\0b' }, 'apns-collapse-id holds a byte HTTP/2 does not allow there'],
    [`a ${MAX_FIELD_VALUE_BYTES + 1}-byte apns-id`, { apnsId: 'i'.repeat(MAX_FIELD_VALUE_BYTES + 1) }, `apns-id is ${MAX_FIELD_VALUE_BYTES + 1} bytes, over ${MAX_FIELD_VALUE_BYTES}`],
    ['a broadcast channel id (base64)', { token: '', channelId: 'dHN0LXNyY2gtY2hubA==' }, undefined],
    [`a ${MAX_FIELD_VALUE_BYTES}-byte channel id`, { token: '', channelId: 'c'.repeat(MAX_FIELD_VALUE_BYTES) }, undefined],
    [`a ${MAX_FIELD_VALUE_BYTES + 1}-byte channel id`, { token: '', channelId: 'c'.repeat(MAX_FIELD_VALUE_BYTES + 1) }, `apns-channel-id is ${MAX_FIELD_VALUE_BYTES + 1} bytes, over ${MAX_FIELD_VALUE_BYTES}`],
    ['a channel id ending in a space', { token: '', channelId: 'abc ' }, 'apns-channel-id holds a byte HTTP/2 does not allow there'],
  ];
  for (const [name, fields, problem] of cases) {
    it(`${name}: ${problem ?? 'framed'}`, () => {
      expect(frameProblem({ token: 'ab'.repeat(32), payload: '{}', ...fields })).to.equal(problem);
    });
  }
});
