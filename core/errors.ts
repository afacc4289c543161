// The error family (STYLE.md "Errors"). Every failure a caller can see is one of these classes:
// it carries its HTTP status, whether its messages may be shown, and any headers of the answer.
// One middleware renders them as {"errors": [...messages]} (DECISIONS "Bodies": error body).
// Adapters convert their client's failures into these in one function each.

export interface HeraldErrorOptions {
  /** Whether `messages` may be shown to the caller. Defaults to true below 500, false from 500. */
  expose?: boolean;
  headers?: Record<string, string>;
  cause?: unknown;
}

export class HeraldError extends Error {
  readonly status: number;
  readonly expose: boolean;
  /** Sentences for the error body; the first one is also `message`. */
  readonly messages: string[];
  readonly headers?: Record<string, string>;

  constructor(status: number, messages: string | string[], options: HeraldErrorOptions = {}) {
    const list = typeof messages === 'string' ? [messages] : [...messages];
    super(list[0] ?? 'Error', options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'HeraldError';
    this.status = status;
    this.messages = list;
    this.expose = options.expose ?? status < 500;
    if (options.headers) this.headers = options.headers;
  }
}

/** 400: the body is not JSON (DECISIONS "Bodies": malformed JSON). */
export class BadRequestError extends HeraldError {
  constructor(message = 'The request body is not valid JSON.', options?: HeraldErrorOptions) {
    super(400, message, options);
    this.name = 'BadRequestError';
  }
}

/** 413: the body is over the size the API reads (1 MB). */
export class PayloadTooLargeError extends HeraldError {
  constructor(message = 'The request body is larger than 1 MB.', options?: HeraldErrorOptions) {
    super(413, message, options);
    this.name = 'PayloadTooLargeError';
  }
}

/** 415: the body is not application/json. */
export class UnsupportedMediaTypeError extends HeraldError {
  constructor(message = 'Send the body as application/json.', options?: HeraldErrorOptions) {
    super(415, message, options);
    this.name = 'UnsupportedMediaTypeError';
  }
}

/**
 * One broken rule: the field it is about, as a path in the body (`contents.en`, `url`,
 * `include_subscription_ids`, `filters[0].value`; '' for the body as a whole), and its sentence.
 * The REST answer shows the sentences only; a form (the dashboard's compose) places each by its
 * field, so rewording a sentence never moves it.
 */
export interface FieldIssue {
  field: string;
  message: string;
}

/** A sentence about the body as a whole, or one whose field is not known here. */
const WHOLE_BODY = '';

/** 422: the body breaks one or more rules of the contract; every broken rule is one message. */
export class ValidationError extends HeraldError {
  readonly issues: FieldIssue[];

  constructor(problems: string | FieldIssue | (string | FieldIssue)[], options?: HeraldErrorOptions) {
    const list = (Array.isArray(problems) ? problems : [problems]).map((p) =>
      typeof p === 'string' ? { field: WHOLE_BODY, message: p } : p,
    );
    super(422, list.map((issue) => issue.message), options);
    this.name = 'ValidationError';
    this.issues = list;
  }
}

/**
 * Why a call was not authenticated (DECISIONS "Identity and auth"). The reason decides the
 * status, so no caller can pair them wrongly: 401 for the key itself, 403 for a valid key used
 * where it may not be.
 */
export type AuthFailureReason =
  | 'missing' // no Authorization header
  | 'malformed' // not `<scheme> <key>`
  | 'unknown' // no such key
  | 'revoked'
  | 'ip_not_allowed' // valid key, caller IP outside its allow-list
  | 'wrong_app' // valid key, body app_id is another app
  | 'read_only'; // valid key of scope `read` on a call that changes something

const FORBIDDEN_REASONS: ReadonlySet<AuthFailureReason> = new Set(['ip_not_allowed', 'wrong_app', 'read_only']);

const AUTH_MESSAGES: Record<AuthFailureReason, string> = {
  missing: 'Send the header Authorization: Key <REST API key>.',
  malformed: 'Send the header Authorization: Key <REST API key>.',
  unknown: 'This REST API key is not valid.',
  revoked: 'This REST API key is not valid.',
  ip_not_allowed: 'This REST API key may not be used from this IP address.',
  wrong_app: 'This REST API key does not belong to the app named by app_id.',
  read_only: 'This REST API key may only read (scope read); sending or cancelling needs a key with scope send.',
};

/** 401 or 403; counts only against the `anonymous` bucket (contract "Authentication" 4). */
export class AuthError extends HeraldError {
  readonly reason: AuthFailureReason;

  constructor(reason: AuthFailureReason, message?: string, options: HeraldErrorOptions = {}) {
    const status = FORBIDDEN_REASONS.has(reason) ? 403 : 401;
    const headers =
      status === 401 ? { 'WWW-Authenticate': 'Key', ...options.headers } : options.headers;
    super(status, message ?? AUTH_MESSAGES[reason], { ...options, headers });
    this.name = 'AuthError';
    this.reason = reason;
  }
}

/** 403 for anything refused that is not about the key (AuthError covers the key). */
export class ForbiddenError extends HeraldError {
  constructor(message = 'This call is not allowed.', options?: HeraldErrorOptions) {
    super(403, message, options);
    this.name = 'ForbiddenError';
  }
}

/** 404: stats id unknown, of another app, or an in-app card (contract "Errors"). */
export class NotFoundError extends HeraldError {
  constructor(message = 'No such notification.', options?: HeraldErrorOptions) {
    super(404, message, options);
    this.name = 'NotFoundError';
  }
}

/** 409: an idempotent repeat while the first call is still running (contract "Idempotency" 6). */
export class ConflictError extends HeraldError {
  constructor(
    message = 'A request with this idempotency key is still in progress. Retry shortly.',
    options: HeraldErrorOptions & { retryAfterSeconds?: number } = {},
  ) {
    const { retryAfterSeconds, ...rest } = options;
    const headers =
      retryAfterSeconds === undefined
        ? rest.headers
        : { 'Retry-After': String(retryAfterSeconds), ...rest.headers };
    super(409, message, { ...rest, headers });
    this.name = 'ConflictError';
  }
}

/** 402: the app has an overdue invoice; nothing recorded or sent (contract "Errors"). */
export class PaymentRequiredError extends HeraldError {
  constructor(
    message = 'Delivery is paused until the invoice for this app is paid.',
    options?: HeraldErrorOptions,
  ) {
    super(402, message, options);
    this.name = 'PaymentRequiredError';
  }
}

/**
 * 429: a rate bucket is empty. `headers` carries the rate-limit headers of the refusing bucket;
 * Retry-After is always set from retryAfterSeconds. The 429 body also has `message`
 * (DECISIONS "Bodies").
 */
export class RateLimitedError extends HeraldError {
  readonly retryAfterSeconds: number;

  constructor(retryAfterSeconds: number, options: HeraldErrorOptions & { message?: string } = {}) {
    const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
    const { message, ...rest } = options;
    super(429, message ?? `Too many requests. Retry after ${seconds} seconds.`, {
      ...rest,
      headers: { ...rest.headers, 'Retry-After': String(seconds) },
    });
    this.name = 'RateLimitedError';
    this.retryAfterSeconds = seconds;
  }
}

/**
 * 503: a dependency (PostgreSQL) is unavailable, so the call could not be recorded or read.
 * Nothing was recorded (the transaction rolled back); the caller retries after Retry-After.
 */
export class ServiceUnavailableError extends HeraldError {
  constructor(retryAfterSeconds = 5, options: HeraldErrorOptions = {}) {
    super(503, `The service is temporarily unavailable. Retry after ${retryAfterSeconds} seconds.`, {
      ...options,
      expose: true,
      headers: { ...options.headers, 'Retry-After': String(retryAfterSeconds) },
    });
    this.name = 'ServiceUnavailableError';
  }
}
