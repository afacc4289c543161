// Which errors mean "a dependency is unavailable right now" (PostgreSQL, NATS, a socket): the
// caller should wait and retry, answer 503, or hand work back — never count it as a failed
// delivery nor turn it into a 500. One rule, used by the api's error body, the sender, the
// scheduler and the process's last-resort handler.
//
// Decided by class and code only, never by message text (STYLE "Errors by type"): an error's text
// is not a contract, and a bug whose message happens to say "timeout" must stay a bug. Each
// adapter whose client reports a lost connection without a class or code converts it into a
// DependencyUnavailableError in one function (PostgreSQL: core/store/db.ts; NATS: core/bus/).
// Redis errors never get this far: the bucket store answers from memory while Redis is down
// (core/buckets/fallback-store.ts).
import { errors as natsErrors } from '@nats-io/transport-node';

/** A dependency could not be reached or lost the connection; `cause` is the client's own error. */
export class DependencyUnavailableError extends Error {
  override name = 'DependencyUnavailableError';
  constructor(
    readonly dependency: string,
    cause: unknown,
  ) {
    super(`${dependency} unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

// PostgreSQL SQLSTATEs of an outage rather than of a bad statement: class 08 (connection
// exception), 57P01–57P03 (admin shutdown, crash shutdown, cannot connect now), 57014 (statement
// timeout / cancel: the server is overloaded or a lock holder vanished), class 53 (insufficient
// resources: disk full, out of memory, too many connections).
const PG_OUTAGE_CLASSES = new Set(['08', '53']);
const PG_OUTAGE_CODES = new Set(['57P01', '57P02', '57P03', '57014']);
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ECONNABORTED']);
// The NATS client's classes for a connection that is closed, draining, lost, or not answering.
const NATS_OUTAGES = [
  natsErrors.ClosedConnectionError,
  natsErrors.ConnectionError,
  natsErrors.DrainingConnectionError,
  natsErrors.NoRespondersError,
  natsErrors.RequestError,
  natsErrors.TimeoutError,
];

/** JavaScript's own classes of a bug: never an outage, whatever they say. */
export function isProgrammingError(error: unknown): boolean {
  return error instanceof TypeError || error instanceof RangeError || error instanceof ReferenceError || error instanceof SyntaxError || error instanceof EvalError || error instanceof URIError;
}

function isOutageCode(code: unknown): boolean {
  if (typeof code !== 'string') return false;
  if (SOCKET_CODES.has(code)) return true;
  return code.length === 5 && (PG_OUTAGE_CLASSES.has(code.slice(0, 2)) || PG_OUTAGE_CODES.has(code));
}

export function isUnavailable(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 4 || isProgrammingError(error)) return false;
  if (error instanceof DependencyUnavailableError) return true;
  if (isOutageCode((error as { code?: unknown }).code)) return true;
  if (NATS_OUTAGES.some((cls) => error instanceof cls)) return true;
  // AggregateError (a connect to several addresses) and wrapped causes.
  if (error instanceof AggregateError && error.errors.some((inner) => isUnavailable(inner, depth + 1))) return true;
  return isUnavailable(error.cause, depth + 1);
}
