// HTTP/2 frames (RFC 9113 §4, §6) for the lean APNs transport: the constants, writers for the
// control frames a client sends, and an incremental reader that cuts the socket's bytes into
// frames without copying when a frame lies within one chunk.

export const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
export const FRAME_HEADER = 9;

export enum FrameType {
  DATA = 0x0,
  HEADERS = 0x1,
  PRIORITY = 0x2,
  RST_STREAM = 0x3,
  SETTINGS = 0x4,
  PUSH_PROMISE = 0x5,
  PING = 0x6,
  GOAWAY = 0x7,
  WINDOW_UPDATE = 0x8,
  CONTINUATION = 0x9,
}

export enum Flag {
  END_STREAM = 0x1,
  ACK = 0x1,
  END_HEADERS = 0x4,
  PADDED = 0x8,
  PRIORITY = 0x20,
}

export enum Setting {
  HEADER_TABLE_SIZE = 0x1,
  ENABLE_PUSH = 0x2,
  MAX_CONCURRENT_STREAMS = 0x3,
  INITIAL_WINDOW_SIZE = 0x4,
  MAX_FRAME_SIZE = 0x5,
  MAX_HEADER_LIST_SIZE = 0x6,
}

export enum ErrorCode {
  NO_ERROR = 0x0,
  PROTOCOL_ERROR = 0x1,
  INTERNAL_ERROR = 0x2,
  FLOW_CONTROL_ERROR = 0x3,
  FRAME_SIZE_ERROR = 0x6,
  REFUSED_STREAM = 0x7,
  CANCEL = 0x8,
  COMPRESSION_ERROR = 0x9,
  ENHANCE_YOUR_CALM = 0xb,
}

export const DEFAULT_WINDOW = 65_535;
export const DEFAULT_MAX_FRAME = 16_384;
export const MAX_WINDOW = 2 ** 31 - 1;

export class ProtocolError extends Error {
  override name = 'ProtocolError';
  constructor(message: string, readonly code: number = ErrorCode.PROTOCOL_ERROR) {
    super(message);
  }
}

/** Writes a frame header at `at`; returns the offset after it. */
export function writeFrameHeader(buf: Buffer, at: number, length: number, type: number, flags: number, streamId: number): number {
  buf[at] = length >>> 16;
  buf[at + 1] = (length >>> 8) & 0xff;
  buf[at + 2] = length & 0xff;
  buf[at + 3] = type;
  buf[at + 4] = flags;
  buf.writeUInt32BE(streamId, at + 5);
  return at + FRAME_HEADER;
}

function frame(type: number, flags: number, streamId: number, payload: Buffer): Buffer {
  const buf = Buffer.allocUnsafe(FRAME_HEADER + payload.length);
  writeFrameHeader(buf, 0, payload.length, type, flags, streamId);
  payload.copy(buf, FRAME_HEADER);
  return buf;
}

export function settingsFrame(settings: Array<[number, number]>): Buffer {
  const payload = Buffer.allocUnsafe(6 * settings.length);
  settings.forEach(([id, value], i) => {
    payload.writeUInt16BE(id, 6 * i);
    payload.writeUInt32BE(value, 6 * i + 2);
  });
  return frame(FrameType.SETTINGS, 0, 0, payload);
}

export const SETTINGS_ACK = frame(FrameType.SETTINGS, Flag.ACK, 0, Buffer.alloc(0));

export function windowUpdateFrame(streamId: number, increment: number): Buffer {
  const payload = Buffer.allocUnsafe(4);
  payload.writeUInt32BE(increment, 0);
  return frame(FrameType.WINDOW_UPDATE, 0, streamId, payload);
}

export function pingAckFrame(opaque: Buffer): Buffer {
  return frame(FrameType.PING, Flag.ACK, 0, opaque);
}

export function rstStreamFrame(streamId: number, code: number): Buffer {
  const payload = Buffer.allocUnsafe(4);
  payload.writeUInt32BE(code, 0);
  return frame(FrameType.RST_STREAM, 0, streamId, payload);
}

export function goawayFrame(lastStreamId: number, code: number): Buffer {
  const payload = Buffer.allocUnsafe(8);
  payload.writeUInt32BE(lastStreamId, 0);
  payload.writeUInt32BE(code, 4);
  return frame(FrameType.GOAWAY, 0, 0, payload);
}

export type FrameHandler = (type: number, flags: number, streamId: number, payload: Buffer) => void;

/**
 * Cuts a byte stream into frames. A frame wholly inside one chunk is handed over as a view of
 * that chunk; only a frame split across chunks is copied. `maxFrameSize` is what we advertised.
 */
export class FrameReader {
  private pending: Buffer | undefined;

  constructor(private readonly onFrame: FrameHandler, private readonly maxFrameSize = DEFAULT_MAX_FRAME) {}

  /** Bytes held for a frame not yet whole: never more than one frame (its header and maxFrameSize). */
  get buffered(): number {
    return this.pending?.length ?? 0;
  }

  push(chunk: Buffer): void {
    let buf = chunk;
    if (this.pending) {
      buf = Buffer.concat([this.pending, chunk]);
      this.pending = undefined;
    }
    let at = 0;
    while (buf.length - at >= FRAME_HEADER) {
      const length = (buf[at] << 16) | (buf[at + 1] << 8) | buf[at + 2];
      if (length > this.maxFrameSize) throw new ProtocolError(`frame of ${length} bytes`, ErrorCode.FRAME_SIZE_ERROR);
      const end = at + FRAME_HEADER + length;
      if (end > buf.length) break;
      const streamId = buf.readUInt32BE(at + 5) & 0x7fffffff;
      this.onFrame(buf[at + 3], buf[at + 4], streamId, buf.subarray(at + FRAME_HEADER, end));
      at = end;
    }
    if (at < buf.length) this.pending = Buffer.from(buf.subarray(at));
  }
}
