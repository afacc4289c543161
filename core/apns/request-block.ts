// The request header block of the lean transport, encoded once per connection and reused.
//
// A request is `:method POST` and `:scheme https` (static table), `:path`, then a prefix of the
// fields that are the same for a whole batch (:authority, apns-topic, apns-push-type,
// apns-priority, apns-collapse-id, authorization), then the other fields that change per
// message (apns-id, apns-expiration, content-length). Changing fields are literals *without indexing*, so the
// peer's dynamic table never churns. The prefix goes into the peer's table once per connection
// (literal with incremental indexing), after which it is a few one-byte indexed references,
// cached as bytes until the table changes (a new provider token, a lowered table size). Every
// string length and index is an RFC 7541 §5.1 integer, so values of any length frame (a Live
// Activity token in :path is over 127 bytes); what may not be framed is field-values.ts's call.
import { encodeInt, encodeString, intLength, stringLength, writeInt, writeString } from './hpack.js';
import type { ApnsMessage } from './types.js';

const STATIC_NAME: Record<string, number> = { ':authority': 1, authorization: 23 };
const STATIC_FIELDS = Buffer.from([0x83, 0x87]); // :method POST, :scheme https
const ENTRY_OVERHEAD = 32;
/** Our table never needs more than this, whatever the peer allows. */
const OUR_TABLE_MAX = 4096;

interface Entry {
  name: string;
  value: string;
  size: number;
}

/** The encoder's side of the peer's dynamic table for one connection. */
export class RequestEncoder {
  private entries: Entry[] = []; // newest first: entries[i] has index 62 + i
  private used = 0;
  private capacity = OUR_TABLE_MAX;
  private sizeUpdate: number[] = [];
  private cachedKey: string | undefined;
  private cached: Buffer | undefined;

  /** The peer's SETTINGS_HEADER_TABLE_SIZE changed: clear its table and shrink ours to fit. */
  setPeerTableSize(size: number): void {
    const next = Math.min(size, OUR_TABLE_MAX);
    if (next === this.capacity && size >= OUR_TABLE_MAX) return;
    this.capacity = next;
    this.sizeUpdate = [0, next];
    this.entries = [];
    this.used = 0;
    this.cached = undefined;
  }

  /** The dynamic table size update owed to the peer, if any: it must open the next block (§4.2). */
  leading(): Buffer | undefined {
    if (this.sizeUpdate.length === 0) return undefined;
    const out = Buffer.from(this.sizeUpdate.flatMap((size) => encodeInt(size, 5, 0x20)));
    this.sizeUpdate = [];
    return out;
  }

  /** The prefix for `fields` (in order), updating our model of the peer's table. */
  prefix(key: string, fields: Array<[string, string]>): Buffer {
    if (this.cached && this.cachedKey === key) return this.cached;
    let changed = false;
    const literals: Buffer[] = [];
    let out = Buffer.alloc(0);
    for (const [name, value] of fields) {
      const at = this.entries.findIndex((e) => e.name === name && e.value === value);
      if (at >= 0) {
        out = Buffer.concat([out, Buffer.from(encodeInt(62 + at, 7, 0x80))]);
        continue;
      }
      const size = name.length + value.length + ENTRY_OVERHEAD;
      const indexed = size <= this.capacity;
      const nameIndex = STATIC_NAME[name] ?? 0;
      // 01xxxxxx: with incremental indexing; 0000xxxx: without (an entry that cannot fit).
      const head = indexed ? encodeInt(nameIndex, 6, 0x40) : encodeInt(nameIndex, 4, 0x00);
      literals.push(Buffer.from(head));
      if (nameIndex === 0) literals.push(encodeString(name));
      literals.push(encodeString(value));
      out = Buffer.concat([out, ...literals.splice(0)]);
      if (indexed) {
        this.insert({ name, value, size });
        changed = true;
      }
    }
    this.cachedKey = changed ? undefined : key;
    this.cached = changed ? undefined : out;
    return out;
  }

  private insert(entry: Entry): void {
    while (this.entries.length > 0 && this.used + entry.size > this.capacity) {
      this.used -= (this.entries.pop() as Entry).size;
    }
    this.entries.unshift(entry);
    this.used += entry.size;
  }
}

// Name literals of the per-message fields (0000 0000: literal without indexing, new name).
const APNS_ID = Buffer.concat([Buffer.from([0]), encodeString('apns-id')]);
const APNS_EXPIRATION = Buffer.concat([Buffer.from([0]), encodeString('apns-expiration')]);
const PATH_HEAD = Buffer.from(encodeInt(4, 4, 0x00)); // literal without indexing, name :path (static 4)
const CONTENT_LENGTH_HEAD = Buffer.from(encodeInt(28, 4, 0x00)); // literal without indexing, name content-length (static 28)
const APNS_CHANNEL_ID = Buffer.concat([Buffer.from([0]), encodeString('apns-channel-id')]);
const DEVICE = '/3/device/';
const BROADCAST = '/4/broadcasts/apps/';

/** The :path of `m`: its device's, or for a broadcast the app's broadcasts path (bundle id). */
export function requestPath(m: ApnsMessage, bundleId: string): string {
  return m.channelId !== undefined ? BROADCAST + bundleId : DEVICE + m.token;
}

/**
 * The bytes `writePseudoFields` and `writeVaryingFields` write for `m` (whose values passed
 * frameProblem): every string length is an RFC 7541 §5.1 integer, one byte below 127 and more
 * from there on.
 */
export function varyingFieldsBound(m: ApnsMessage, contentLength: number, path = DEVICE + m.token): number {
  let n = STATIC_FIELDS.length + PATH_HEAD.length + intLength(path.length, 7) + path.length;
  if (m.channelId !== undefined) n += APNS_CHANNEL_ID.length + stringLength(m.channelId);
  if (m.apnsId) n += APNS_ID.length + stringLength(m.apnsId);
  if (m.expiration !== undefined) n += APNS_EXPIRATION.length + stringLength(String(m.expiration));
  return n + CONTENT_LENGTH_HEAD.length + stringLength(String(contentLength));
}

/** :method, :scheme and :path (pseudo-header fields come first, RFC 9113 §8.3); returns the new offset. */
export function writePseudoFields(buf: Buffer, at: number, m: ApnsMessage, path = DEVICE + m.token): number {
  at += STATIC_FIELDS.copy(buf, at);
  at += PATH_HEAD.copy(buf, at);
  at = writeInt(buf, at, path.length, 7, 0); // H = 0: raw bytes
  return at + buf.write(path, at, 'latin1');
}

/** The per-message regular fields, after the prefix; returns the new offset. */
export function writeVaryingFields(buf: Buffer, at: number, m: ApnsMessage, contentLength: number): number {
  // A broadcast's channel: one request per update, so a literal without indexing, as apns-id.
  if (m.channelId !== undefined) {
    at += APNS_CHANNEL_ID.copy(buf, at);
    at = writeString(buf, at, m.channelId);
  }
  if (m.apnsId) {
    at += APNS_ID.copy(buf, at);
    at = writeString(buf, at, m.apnsId);
  }
  if (m.expiration !== undefined) {
    at += APNS_EXPIRATION.copy(buf, at);
    at = writeString(buf, at, String(m.expiration));
  }
  at += CONTENT_LENGTH_HEAD.copy(buf, at);
  return writeString(buf, at, String(contentLength));
}
