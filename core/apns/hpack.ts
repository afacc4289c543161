// HPACK (RFC 7541) for the lean APNs transport: a decoder for the peer's response header blocks
// and the few encoding primitives the request block needs.
//
// Why our own and not hpack.js: hpack.js (last release 2016) decodes through a Readable stream
// per connection, an allocation-heavy path we would run once per response, at tens of thousands
// of responses a second; what APNs answers needs only a dynamic table, integers, strings and
// the Huffman code — ~150 lines, checked against every Appendix C vector (core/apns/hpack.test.ts).
import { HUFFMAN_CODES, HUFFMAN_LENGTHS } from './huffman-table.js';

export class HpackError extends Error {
  override name = 'HpackError';
}

/** RFC 7541 Appendix A. Index 1 is STATIC[0]. */
export const STATIC_TABLE: ReadonlyArray<readonly [string, string]> = [
  [':authority', ''], [':method', 'GET'], [':method', 'POST'], [':path', '/'], [':path', '/index.html'],
  [':scheme', 'http'], [':scheme', 'https'], [':status', '200'], [':status', '204'], [':status', '206'],
  [':status', '304'], [':status', '400'], [':status', '404'], [':status', '500'], ['accept-charset', ''],
  ['accept-encoding', 'gzip, deflate'], ['accept-language', ''], ['accept-ranges', ''], ['accept', ''],
  ['access-control-allow-origin', ''], ['age', ''], ['allow', ''], ['authorization', ''], ['cache-control', ''],
  ['content-disposition', ''], ['content-encoding', ''], ['content-language', ''], ['content-length', ''],
  ['content-location', ''], ['content-range', ''], ['content-type', ''], ['cookie', ''], ['date', ''], ['etag', ''],
  ['expect', ''], ['expires', ''], ['from', ''], ['host', ''], ['if-match', ''], ['if-modified-since', ''],
  ['if-none-match', ''], ['if-range', ''], ['if-unmodified-since', ''], ['last-modified', ''], ['link', ''],
  ['location', ''], ['max-forwards', ''], ['proxy-authenticate', ''], ['proxy-authorization', ''], ['range', ''],
  ['referer', ''], ['refresh', ''], ['retry-after', ''], ['server', ''], ['set-cookie', ''],
  ['strict-transport-security', ''], ['transfer-encoding', ''], ['user-agent', ''], ['vary', ''], ['via', ''],
  ['www-authenticate', ''],
];

// The Huffman code as a binary trie: node n has children TRIE[2n] (bit 0) and TRIE[2n+1] (bit 1);
// a child value < 0 is the leaf for symbol ~value; 0 means no such code.
const TRIE = new Int32Array(2 * 512);
let trieNodes = 1;
for (let sym = 0; sym < 256; sym++) {
  const code = HUFFMAN_CODES[sym];
  const len = HUFFMAN_LENGTHS[sym];
  let node = 0;
  for (let i = len - 1; i >= 0; i--) {
    const slot = 2 * node + ((code >>> i) & 1);
    if (i === 0) TRIE[slot] = ~sym;
    else node = TRIE[slot] || (TRIE[slot] = trieNodes++);
  }
}

export function huffmanDecode(buf: Buffer, start: number, end: number): string {
  const out = Buffer.allocUnsafe(Math.ceil(((end - start) * 8) / 5));
  let n = 0;
  let node = 0;
  let depth = 0; // bits read since the last symbol
  let allOnes = true;
  for (let i = start; i < end; i++) {
    const byte = buf[i];
    for (let b = 7; b >= 0; b--) {
      const bit = (byte >> b) & 1;
      const next = TRIE[2 * node + bit];
      depth++;
      allOnes &&= bit === 1;
      if (next < 0) {
        out[n++] = ~next;
        node = 0;
        depth = 0;
        allOnes = true;
      } else if (next === 0) {
        throw new HpackError('invalid Huffman code');
      } else node = next;
    }
  }
  // §5.2: padding is fewer than 8 bits, all ones (a prefix of EOS).
  if (depth > 7 || !allOnes) throw new HpackError('invalid Huffman padding');
  return out.toString('latin1', 0, n);
}

/**
 * Writes `value` as an HPACK integer with an N-bit prefix (RFC 7541 §5.1) at `at`, the prefix's
 * high bits set to `flags`; returns the offset after it. Below 2^N-1 the value fits the prefix;
 * from 2^N-1 on the prefix is all ones and the rest follows in 7-bit groups, least significant
 * first, each but the last with its high bit set. The buffer needs intLength(value, N) bytes.
 */
export function writeInt(buf: Buffer, at: number, value: number, prefixBits: number, flags: number): number {
  const max = (1 << prefixBits) - 1;
  if (value < max) {
    buf[at] = flags | value;
    return at + 1;
  }
  buf[at++] = flags | max;
  let rest = value - max;
  while (rest >= 128) {
    buf[at++] = (rest % 128) + 128;
    rest = Math.floor(rest / 128);
  }
  buf[at] = rest;
  return at + 1;
}

/** The bytes writeInt takes for `value` with an N-bit prefix. */
export function intLength(value: number, prefixBits: number): number {
  let rest = value - ((1 << prefixBits) - 1);
  if (rest < 0) return 1;
  let n = 2;
  while (rest >= 128) {
    rest = Math.floor(rest / 128);
    n++;
  }
  return n;
}

/** Bytes of the encoded integer `value` with an N-bit prefix whose high bits are `flags`. */
export function encodeInt(value: number, prefixBits: number, flags: number): number[] {
  const out = Buffer.alloc(intLength(value, prefixBits));
  writeInt(out, 0, value, prefixBits, flags);
  return [...out];
}

/** A raw string literal's length (H bit 0, 7-bit prefix) at `at`, then its latin1 bytes; returns the new offset. */
export function writeString(buf: Buffer, at: number, value: string): number {
  at = writeInt(buf, at, value.length, 7, 0);
  return at + buf.write(value, at, 'latin1');
}

/** The bytes writeString takes for `value` (visible ASCII: one byte a character). */
export function stringLength(value: string): number {
  return intLength(value.length, 7) + value.length;
}

/** A raw (non-Huffman) string literal: length, then latin1 bytes. */
export function encodeString(value: string): Buffer {
  const out = Buffer.alloc(stringLength(value));
  writeString(out, 0, value);
  return out;
}

export type HeaderList = Array<[string, string]>;

export class HpackDecoder {
  private table: Array<[string, string]> = []; // newest first
  private size = 0;
  private pos = 0;
  private buf: Buffer = Buffer.alloc(0);

  private capacity: number;

  /** `maxSize` is our SETTINGS_HEADER_TABLE_SIZE: the largest table the peer may make us keep. */
  constructor(private readonly maxSize = 4096, private readonly maxStringLength = 65_536) {
    this.capacity = maxSize;
  }

  /** The dynamic table, newest first, and its size in RFC 7541 §4.1 terms. */
  get dynamicTable(): { entries: HeaderList; size: number } {
    return { entries: this.table.map(([n, v]) => [n, v]), size: this.size };
  }

  decode(buf: Buffer, start = 0, end = buf.length): HeaderList {
    this.buf = buf;
    this.pos = start;
    const headers: HeaderList = [];
    let fieldSeen = false;
    while (this.pos < end) {
      const byte = buf[this.pos];
      if (byte & 0x80) {
        headers.push(this.entry(this.int(7, end)));
      } else if (byte & 0x40) {
        const field = this.literal(6, end);
        this.insert(field);
        headers.push(field);
      } else if (byte & 0x20) {
        // §4.2: size updates only at the start of a block.
        if (fieldSeen) throw new HpackError('dynamic table size update after a field');
        const size = this.int(5, end);
        if (size > this.maxSize) throw new HpackError('dynamic table size update above the limit');
        this.capacity = size;
        this.evict(0);
        continue;
      } else {
        headers.push(this.literal(4, end)); // without indexing (0000) or never indexed (0001)
      }
      fieldSeen = true;
    }
    return headers;
  }

  private int(prefixBits: number, end: number): number {
    const max = (1 << prefixBits) - 1;
    let value = this.buf[this.pos++] & max;
    if (value < max) return value;
    let shift = 0;
    for (;;) {
      if (this.pos >= end) throw new HpackError('truncated integer');
      const b = this.buf[this.pos++];
      value += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if (value > 0x7fffffff) throw new HpackError('integer too large');
      if (!(b & 0x80)) return value;
    }
  }

  private string(end: number): string {
    if (this.pos >= end) throw new HpackError('truncated string');
    const huffman = (this.buf[this.pos] & 0x80) !== 0;
    const length = this.int(7, end);
    const stop = this.pos + length;
    if (length > this.maxStringLength || stop > end) throw new HpackError('string too long or truncated');
    const s = huffman ? huffmanDecode(this.buf, this.pos, stop) : this.buf.toString('latin1', this.pos, stop);
    this.pos = stop;
    return s;
  }

  private literal(prefixBits: number, end: number): [string, string] {
    const index = this.int(prefixBits, end);
    const name = index === 0 ? this.string(end) : this.entry(index)[0];
    return [name, this.string(end)];
  }

  private entry(index: number): [string, string] {
    if (index >= 1 && index <= STATIC_TABLE.length) return STATIC_TABLE[index - 1] as [string, string];
    const field = this.table[index - STATIC_TABLE.length - 1];
    if (!field) throw new HpackError(`no table entry ${index}`);
    return field;
  }

  private insert(field: [string, string]): void {
    const size = field[0].length + field[1].length + 32;
    this.evict(size);
    if (size > this.capacity) return; // §4.4: an entry larger than the table empties it
    this.table.unshift(field);
    this.size += size;
  }

  private evict(room: number): void {
    while (this.table.length > 0 && this.size + room > this.capacity) {
      const [name, value] = this.table.pop() as [string, string];
      this.size -= name.length + value.length + 32;
    }
  }
}
