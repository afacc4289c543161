// A request body read off an HTTP/2 stream, for the simulator's broadcast and channel management
// hosts: whole up to `keep` bytes, counted past it (a hostile body can't eat memory), and the
// JSON answer those hosts give (Apple's `{"reason"}` on refusal).
import type { OutgoingHttpHeaders, ServerHttp2Stream } from 'node:http2';

export function readBody(stream: ServerHttp2Stream, keep: number, onEnd: (body: Buffer, size: number) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  stream.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= keep) chunks.push(chunk);
  });
  stream.on('error', () => {
    /* a client reset; nothing to answer */
  });
  stream.on('end', () => onEnd(Buffer.concat(chunks), size));
}

/** Answers with the headers given and, when there is one, a JSON body. */
export function answerJson(stream: ServerHttp2Stream, headers: OutgoingHttpHeaders, body?: unknown): void {
  if (stream.destroyed || stream.closed) return;
  if (body === undefined) {
    stream.respond(headers, { endStream: true });
    return;
  }
  stream.respond({ ...headers, 'content-type': 'application/json' });
  stream.end(JSON.stringify(body));
}
