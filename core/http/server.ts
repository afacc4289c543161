// The api's HTTP server with its limits, one place for every process that serves the REST
// interface (`herald api`, `herald dev`, the tests). Node's defaults hold a slow client for
// minutes (requestTimeout 300 s, checked every 30 s): a body dribbled one byte a second kept a
// connection and its parser for that long. docs/operations.md "HTTP limits" lists these.
import { createServer, type RequestListener, type Server } from 'node:http';

export const HTTP_LIMITS = {
  /** The whole request (headers and body, ≤ 1 MB) must arrive within this, else 408 and close. */
  requestTimeoutMs: 20_000,
  /** The headers must arrive within this. */
  headersTimeoutMs: 10_000,
  /** How often Node checks the two timeouts above (its default, 30 s, stretched every bound). */
  checkEveryMs: 1_000,
  /** An idle keep-alive connection is closed after this: longer than common load balancers' idle timeout. */
  keepAliveTimeoutMs: 65_000,
  /** Header lines kept per request (Node's default 2,000); the header bytes are capped at 16 KB by Node. */
  maxHeadersCount: 100,
  /** Open connections per process; past it new ones are refused. Per-address caps are the ingress's job. */
  maxConnections: 10_000,
} as const;

export function createHttpServer(handler: RequestListener, limits: typeof HTTP_LIMITS = HTTP_LIMITS): Server {
  const server = createServer(
    { requestTimeout: limits.requestTimeoutMs, headersTimeout: limits.headersTimeoutMs, connectionsCheckingInterval: limits.checkEveryMs, keepAliveTimeout: limits.keepAliveTimeoutMs },
    handler,
  );
  server.maxHeadersCount = limits.maxHeadersCount;
  server.maxConnections = limits.maxConnections;
  return server;
}
