// Scripted answers by registration-token prefix (FCM's error codes, /work/shared/design/FCM.md
// "Errors"). The first rule whose prefix starts the token wins.
import { readFile } from 'node:fs/promises';

export interface FcmSimRule {
  prefix: string;
  /** Answer with this status (and `errorCode`, default per status) instead of 200. */
  status?: number;
  errorCode?: string;
  /** Fail only the first N attempts for each token, then answer 200. Absent: always. */
  times?: number;
  /** Retry-After, in seconds, on the scripted answer. */
  retryAfter?: number;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Break the transport instead of answering. */
  action?: 'reset-stream' | 'goaway';
}

/** FCM's error code for each status when a rule names none, and the google.rpc status it comes with. */
export const DEFAULT_CODES: Record<number, { errorCode: string; status: string }> = {
  400: { errorCode: 'INVALID_ARGUMENT', status: 'INVALID_ARGUMENT' },
  401: { errorCode: 'THIRD_PARTY_AUTH_ERROR', status: 'UNAUTHENTICATED' },
  403: { errorCode: 'SENDER_ID_MISMATCH', status: 'PERMISSION_DENIED' },
  404: { errorCode: 'UNREGISTERED', status: 'NOT_FOUND' },
  429: { errorCode: 'QUOTA_EXCEEDED', status: 'RESOURCE_EXHAUSTED' },
  500: { errorCode: 'INTERNAL', status: 'INTERNAL' },
  503: { errorCode: 'UNAVAILABLE', status: 'UNAVAILABLE' },
};

const VALID_STATUSES = new Set([200, ...Object.keys(DEFAULT_CODES).map(Number)]);

/** Throws with a message naming the bad rule; returns a normalised copy. */
export function validateRules(input: unknown): FcmSimRule[] {
  const list = Array.isArray(input) ? input : (input as { rules?: unknown } | null)?.rules;
  if (!Array.isArray(list)) throw new TypeError('rules must be an array or {"rules": [...]}');
  return list.map((r, i) => {
    const at = `rules[${i}]`;
    if (typeof r !== 'object' || r === null) throw new TypeError(`${at} must be an object`);
    const rule = r as Record<string, unknown>;
    if (typeof rule.prefix !== 'string') throw new TypeError(`${at}.prefix must be a string`);
    if (rule.status !== undefined && !VALID_STATUSES.has(rule.status as number)) throw new TypeError(`${at}.status must be one of ${[...VALID_STATUSES].join(', ')}`);
    if (rule.errorCode !== undefined && typeof rule.errorCode !== 'string') throw new TypeError(`${at}.errorCode must be a string`);
    for (const k of ['times', 'retryAfter', 'delayMs'] as const) {
      const v = rule[k];
      if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < 0)) throw new TypeError(`${at}.${k} must be a non-negative integer`);
    }
    if (rule.action !== undefined && rule.action !== 'reset-stream' && rule.action !== 'goaway') throw new TypeError(`${at}.action must be "reset-stream" or "goaway"`);
    return {
      prefix: rule.prefix,
      status: rule.status as number | undefined,
      errorCode: rule.errorCode as string | undefined,
      times: rule.times as number | undefined,
      retryAfter: rule.retryAfter as number | undefined,
      delayMs: rule.delayMs as number | undefined,
      action: rule.action as FcmSimRule['action'],
    };
  });
}

export async function loadRulesFile(path: string): Promise<FcmSimRule[]> {
  return validateRules(JSON.parse(await readFile(path, 'utf8')));
}

export function matchRule(rules: readonly FcmSimRule[], token: string): FcmSimRule | undefined {
  for (const r of rules) if (token.startsWith(r.prefix)) return r;
  return undefined;
}

export type Outcome =
  | { kind: 'ok'; delayMs: number }
  | { kind: 'error'; status: number; errorCode: string; rpcStatus: string; retryAfter?: number; delayMs: number }
  | { kind: 'reset-stream' | 'goaway'; delayMs: number };

/** `attempt` is 1 for the first request for this token. */
export function decide(rule: FcmSimRule | undefined, attempt: number): Outcome {
  if (!rule) return { kind: 'ok', delayMs: 0 };
  const delayMs = rule.delayMs ?? 0;
  if (rule.times !== undefined && attempt > rule.times) return { kind: 'ok', delayMs };
  if (rule.action) return { kind: rule.action, delayMs };
  if (rule.status === undefined || rule.status === 200) return { kind: 'ok', delayMs };
  const d = DEFAULT_CODES[rule.status];
  return { kind: 'error', status: rule.status, errorCode: rule.errorCode ?? d.errorCode, rpcStatus: d.status, retryAfter: rule.retryAfter, delayMs };
}

/** FCM's error body. */
export function errorBody(status: number, rpcStatus: string, message: string, errorCode?: string): unknown {
  return {
    error: {
      code: status,
      message,
      status: rpcStatus,
      ...(errorCode ? { details: [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode }] } : {}),
    },
  };
}
