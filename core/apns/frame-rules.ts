// RFC 9113 §6's rules for each frame type a client receives, in one pure function: the stream-0
// rule, the exact or minimum length, padding, and the values a frame may carry. A frame that
// breaks one is a connection error with the code the RFC names (the connection answers GOAWAY
// with it and closes; its requests are retried elsewhere, never counted). What passes comes out
// decoded, so the connection never reads a payload by hand.
import { ErrorCode, Flag, FrameType, ProtocolError } from './frames.js';

export type ParsedFrame =
  | { type: FrameType.DATA; streamId: number; endStream: boolean; data: Buffer; length: number }
  | { type: FrameType.HEADERS; streamId: number; endStream: boolean; endHeaders: boolean; block: Buffer }
  | { type: FrameType.CONTINUATION; streamId: number; endHeaders: boolean; block: Buffer }
  | { type: FrameType.RST_STREAM; streamId: number; code: number }
  | { type: FrameType.SETTINGS; ack: boolean; settings: Array<[number, number]> }
  | { type: FrameType.PING; ack: boolean; opaque: Buffer }
  | { type: FrameType.GOAWAY; lastStreamId: number; code: number; debug: Buffer }
  | { type: FrameType.WINDOW_UPDATE; streamId: number; increment: number }
  | { type: 'ignored' }; // PRIORITY (deprecated) and unknown types (§5.5)

const err = (message: string, code: number = ErrorCode.PROTOCOL_ERROR) => new ProtocolError(message, code);

function onStream(type: string, streamId: number): void {
  if (streamId === 0) throw err(`${type} on stream 0`);
}
function onConnection(type: string, streamId: number): void {
  if (streamId !== 0) throw err(`${type} on stream ${streamId}`);
}
function exactly(type: string, payload: Buffer, n: number): void {
  if (payload.length !== n) throw err(`${type} of ${payload.length} bytes (must be ${n})`, ErrorCode.FRAME_SIZE_ERROR);
}

/** The payload without its padding (DATA, HEADERS with PADDED); `fixed` bytes follow the pad length. */
function unpadded(type: string, flags: number, payload: Buffer, fixed = 0): Buffer {
  if (!(flags & Flag.PADDED)) {
    if (payload.length < fixed) throw err(`${type} shorter than its fields`, ErrorCode.FRAME_SIZE_ERROR);
    return payload.subarray(fixed);
  }
  if (payload.length < 1 + fixed) throw err(`padded ${type} without room for its pad length`, ErrorCode.FRAME_SIZE_ERROR);
  const padding = payload[0];
  if (1 + fixed + padding > payload.length) throw err(`${type} padding longer than the frame`);
  return payload.subarray(1 + fixed, payload.length - padding);
}

export function parseFrame(type: number, flags: number, streamId: number, payload: Buffer): ParsedFrame {
  switch (type) {
    case FrameType.DATA:
      onStream('DATA', streamId);
      return { type, streamId, endStream: !!(flags & Flag.END_STREAM), data: unpadded('DATA', flags, payload), length: payload.length };
    case FrameType.HEADERS:
      onStream('HEADERS', streamId);
      return {
        type,
        streamId,
        endStream: !!(flags & Flag.END_STREAM),
        endHeaders: !!(flags & Flag.END_HEADERS),
        block: unpadded('HEADERS', flags, payload, flags & Flag.PRIORITY ? 5 : 0),
      };
    case FrameType.CONTINUATION:
      onStream('CONTINUATION', streamId);
      return { type, streamId, endHeaders: !!(flags & Flag.END_HEADERS), block: payload };
    case FrameType.PRIORITY:
      onStream('PRIORITY', streamId);
      exactly('PRIORITY', payload, 5);
      return { type: 'ignored' };
    case FrameType.RST_STREAM:
      onStream('RST_STREAM', streamId);
      exactly('RST_STREAM', payload, 4);
      return { type, streamId, code: payload.readUInt32BE(0) };
    case FrameType.SETTINGS: {
      onConnection('SETTINGS', streamId);
      const ack = !!(flags & Flag.ACK);
      if (ack && payload.length !== 0) throw err('SETTINGS ACK with a payload', ErrorCode.FRAME_SIZE_ERROR);
      if (payload.length % 6 !== 0) throw err(`SETTINGS of ${payload.length} bytes (a multiple of 6)`, ErrorCode.FRAME_SIZE_ERROR);
      const settings: Array<[number, number]> = [];
      for (let i = 0; i < payload.length; i += 6) settings.push([payload.readUInt16BE(i), payload.readUInt32BE(i + 2)]);
      return { type, ack, settings };
    }
    case FrameType.PUSH_PROMISE:
      throw err('PUSH_PROMISE with push disabled');
    case FrameType.PING:
      onConnection('PING', streamId);
      exactly('PING', payload, 8);
      return { type, ack: !!(flags & Flag.ACK), opaque: payload };
    case FrameType.GOAWAY:
      onConnection('GOAWAY', streamId);
      if (payload.length < 8) throw err(`GOAWAY of ${payload.length} bytes (at least 8)`, ErrorCode.FRAME_SIZE_ERROR);
      return { type, lastStreamId: payload.readUInt32BE(0) & 0x7fffffff, code: payload.readUInt32BE(4), debug: payload.subarray(8, 208) };
    case FrameType.WINDOW_UPDATE: {
      exactly('WINDOW_UPDATE', payload, 4);
      const increment = payload.readUInt32BE(0) & 0x7fffffff;
      if (increment === 0) throw err('WINDOW_UPDATE of 0');
      return { type, streamId, increment };
    }
    default:
      return { type: 'ignored' };
  }
}
