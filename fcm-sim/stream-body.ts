// A request body read off an HTTP/2 stream (whole up to `keep` bytes, counted past it, so a
// hostile body cannot eat memory) and a JSON answer: messages:send's two ends.
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

export function answerJson(stream: ServerHttp2Stream, headers: OutgoingHttpHeaders, body: unknown): void {
  if (stream.destroyed || stream.closed) return;
  stream.respond({ ...headers, 'content-type': 'application/json; charset=UTF-8' });
  stream.end(JSON.stringify(body));
}
