// Which errors mean "a dependency is unavailable right now" (PostgreSQL, NATS, Redis, a socket): the
// caller should wait and retry, answer 503, or hand work back — never count it as a failed
// delivery nor turn it into a 500. One rule, used by the api's error body, the sender and the
// start-up checks.

// PostgreSQL SQLSTATEs of an outage rather than of a bad statement: connection exceptions (08…),
// server shutting down or starting (57P01–57P03), statement timeout / cancel (57014), too many
// connections (53300), out of memory / disk (53100, 53200).
const PG_OUTAGE = /^(08...|57P0[1-3]|57014|53[123]00)$/;
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ECONNABORTED']);
// Messages of pg and pg-pool for a lost, refused or timed-out connection (they carry no code),
// of the NATS client while it is disconnected or reconnecting, and of ioredis while Redis is down.
const MESSAGES =
  /Connection terminated|Connection is closed|max retries per request|Stream isn't writeable|timeout exceeded when trying to connect|Query read timeout|not queryable|connection error|Cannot use a pool after calling end|NATS is not connected|CONNECTION_CLOSED|connection closed|disconnect|no responders|timeout/i;
const NATS_ERRORS = new Set(['ClosedConnectionError', 'ConnectionError', 'TimeoutError', 'NoRespondersError', 'DrainingConnectionError', 'RequestError']);

export function isUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 4) return false;
  const e = error as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string' && (PG_OUTAGE.test(e.code) || SOCKET_CODES.has(e.code))) return true;
  if (typeof e.name === 'string' && NATS_ERRORS.has(e.name)) return true;
  if (typeof e.message === 'string' && MESSAGES.test(e.message)) return true;
  // AggregateError (a connect to several addresses) and wrapped causes.
  if (Array.isArray(e.errors) && e.errors.some((inner) => isUnavailable(inner, depth + 1))) return true;
  return isUnavailable(e.cause, depth + 1);
}
