// RFC 9113 §6 per frame type: each malformed frame is a ProtocolError with the code the RFC
// names (the connection answers GOAWAY with it). And a property over the reader and the rules:
// random and mutated frames give only protocol errors, never another exception, and the reader
// never holds more than one frame.
import { expect } from 'chai';
import fc from 'fast-check';
import { DEFAULT_MAX_FRAME, ErrorCode, Flag, FRAME_HEADER, FrameReader, FrameType, ProtocolError, writeFrameHeader } from './frames.js';
import { parseFrame } from './frame-rules.js';
import { HpackDecoder, HpackError } from './hpack.js';

const codeOf = (fn: () => unknown): number | string => {
  try {
    fn();
    return 'accepted';
  } catch (error) {
    if (error instanceof ProtocolError) return error.code;
    throw error;
  }
};
const bytes = (n: number) => Buffer.alloc(n, 1);

describe('HTTP/2 frame rules (RFC 9113 §6)', () => {
  const cases: [string, number, number, number, Buffer, number | string][] = [
    ['DATA on stream 0', FrameType.DATA, 0, 0, bytes(3), ErrorCode.PROTOCOL_ERROR],
    ['PADDED DATA with no payload', FrameType.DATA, Flag.PADDED, 1, Buffer.alloc(0), ErrorCode.FRAME_SIZE_ERROR],
    ['DATA padding longer than the frame', FrameType.DATA, Flag.PADDED, 1, Buffer.from([5, 1, 2]), ErrorCode.PROTOCOL_ERROR],
    ['HEADERS on stream 0', FrameType.HEADERS, Flag.END_HEADERS, 0, bytes(2), ErrorCode.PROTOCOL_ERROR],
    ['HEADERS with PRIORITY shorter than 5', FrameType.HEADERS, Flag.PRIORITY, 1, bytes(3), ErrorCode.FRAME_SIZE_ERROR],
    ['PRIORITY of 4 bytes', FrameType.PRIORITY, 0, 1, bytes(4), ErrorCode.FRAME_SIZE_ERROR],
    ['RST_STREAM of 2 bytes', FrameType.RST_STREAM, 0, 1, bytes(2), ErrorCode.FRAME_SIZE_ERROR],
    ['RST_STREAM on stream 0', FrameType.RST_STREAM, 0, 0, bytes(4), ErrorCode.PROTOCOL_ERROR],
    ['SETTINGS on a stream', FrameType.SETTINGS, 0, 1, Buffer.alloc(0), ErrorCode.PROTOCOL_ERROR],
    ['SETTINGS of 5 bytes', FrameType.SETTINGS, 0, 0, bytes(5), ErrorCode.FRAME_SIZE_ERROR],
    ['SETTINGS ACK with a payload', FrameType.SETTINGS, Flag.ACK, 0, bytes(6), ErrorCode.FRAME_SIZE_ERROR],
    ['PUSH_PROMISE (push is off)', FrameType.PUSH_PROMISE, 0, 1, bytes(4), ErrorCode.PROTOCOL_ERROR],
    ['PING of 3 bytes', FrameType.PING, 0, 0, bytes(3), ErrorCode.FRAME_SIZE_ERROR],
    ['PING on a stream', FrameType.PING, 0, 1, bytes(8), ErrorCode.PROTOCOL_ERROR],
    ['GOAWAY of 7 bytes', FrameType.GOAWAY, 0, 0, bytes(7), ErrorCode.FRAME_SIZE_ERROR],
    ['GOAWAY on a stream', FrameType.GOAWAY, 0, 3, bytes(8), ErrorCode.PROTOCOL_ERROR],
    ['WINDOW_UPDATE of 3 bytes', FrameType.WINDOW_UPDATE, 0, 0, bytes(3), ErrorCode.FRAME_SIZE_ERROR],
    ['WINDOW_UPDATE of 0', FrameType.WINDOW_UPDATE, 0, 1, Buffer.alloc(4), ErrorCode.PROTOCOL_ERROR],
    ['CONTINUATION on stream 0', FrameType.CONTINUATION, 0, 0, bytes(1), ErrorCode.PROTOCOL_ERROR],
    ['a well-formed PING', FrameType.PING, 0, 0, bytes(8), 'accepted'],
    ['an unknown type', 0x42, 0, 0, bytes(1), 'accepted'],
  ];
  for (const [name, type, flags, stream, payload, code] of cases) {
    it(`${name} → ${typeof code === 'number' ? ErrorCode[code] : code}`, () => {
      expect(codeOf(() => parseFrame(type, flags, stream, payload))).to.equal(code);
    });
  }

  it('property: random and mutated frames give only protocol errors, and the reader holds at most one frame', () => {
    const frameOf = (type: number, flags: number, stream: number, payload: Uint8Array) => {
      const buf = Buffer.alloc(FRAME_HEADER + payload.length);
      writeFrameHeader(buf, 0, payload.length, type, flags, stream);
      Buffer.from(payload).copy(buf, FRAME_HEADER);
      return buf;
    };
    const wellFormed = fc.tuple(fc.integer({ min: 0, max: 10 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 9 }), fc.uint8Array({ maxLength: 40 })).map(([t, f, s, p]) => frameOf(t, f, s, p));
    const mutated = fc.tuple(wellFormed, fc.nat(), fc.integer({ min: 0, max: 255 })).map(([b, at, v]) => {
      const copy = Buffer.from(b);
      copy[at % copy.length] = v;
      return copy;
    });
    const stream = fc.array(fc.oneof(wellFormed, mutated, fc.uint8Array({ maxLength: 64 }).map((u) => Buffer.from(u))), { maxLength: 12 });
    fc.assert(
      fc.property(stream, fc.integer({ min: 1, max: 50 }), (chunks, cut) => {
        const decoder = new HpackDecoder(4096);
        const reader = new FrameReader((type, flags, id, payload) => {
          const f = parseFrame(type, flags, id, payload);
          if (f.type === FrameType.HEADERS && f.endHeaders) decoder.decode(f.block);
        });
        const all = Buffer.concat(chunks);
        try {
          for (let at = 0; at < all.length; at += cut) {
            reader.push(all.subarray(at, at + cut));
            expect(reader.buffered).to.be.at.most(FRAME_HEADER + DEFAULT_MAX_FRAME);
          }
        } catch (error) {
          if (!(error instanceof ProtocolError || error instanceof HpackError)) throw error;
        }
        return true;
      }),
      { numRuns: 2000 },
    );
  });
});
