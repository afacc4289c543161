// Scripted answers by device-token prefix. The first rule whose prefix starts the token wins.
import { readFile } from 'node:fs/promises';

export interface SimRule {
  prefix: string;
  /** Answer with this status (and `reason`, default per status) instead of 200. */
  status?: number;
  reason?: string;
  /** Fail only the first N attempts for each token, then answer 200. Absent: always. */
  times?: number;
  /** Wait this long before answering (applies to the scripted answer and to the 200). */
  delayMs?: number;
  /** Break the transport instead of answering: RST_STREAM, or GOAWAY + close of the connection. */
  action?: 'reset-stream' | 'goaway';
  /** For 410: the `timestamp` in the body (ms since epoch). Default: now. */
  timestamp?: number;
}

/** Apple's reason for each status when a rule names none. */
export const DEFAULT_REASONS: Record<number, string> = {
  400: 'BadDeviceToken',
  403: 'Forbidden',
  404: 'BadPath',
  405: 'MethodNotAllowed',
  410: 'Unregistered',
  413: 'PayloadTooLarge',
  429: 'TooManyRequests',
  500: 'InternalServerError',
  503: 'ServiceUnavailable',
};

const VALID_STATUSES = new Set([200, ...Object.keys(DEFAULT_REASONS).map(Number)]);

/** Throws with a message naming the bad rule; returns a normalised copy. */
export function validateRules(input: unknown): SimRule[] {
  const list = Array.isArray(input) ? input : (input as { rules?: unknown } | null)?.rules;
  if (!Array.isArray(list)) throw new TypeError('rules must be an array or {"rules": [...]}');
  return list.map((r, i) => {
    const at = `rules[${i}]`;
    if (typeof r !== 'object' || r === null) throw new TypeError(`${at} must be an object`);
    const rule = r as Record<string, unknown>;
    if (typeof rule.prefix !== 'string') throw new TypeError(`${at}.prefix must be a string`);
    if (rule.status !== undefined && !VALID_STATUSES.has(rule.status as number)) {
      throw new TypeError(`${at}.status must be one of ${[...VALID_STATUSES].join(', ')}`);
    }
    if (rule.reason !== undefined && typeof rule.reason !== 'string') throw new TypeError(`${at}.reason must be a string`);
    for (const k of ['times', 'delayMs', 'timestamp'] as const) {
      const v = rule[k];
      if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < 0)) {
        throw new TypeError(`${at}.${k} must be a non-negative integer`);
      }
    }
    if (rule.action !== undefined && rule.action !== 'reset-stream' && rule.action !== 'goaway') {
      throw new TypeError(`${at}.action must be "reset-stream" or "goaway"`);
    }
    return {
      prefix: rule.prefix,
      status: rule.status as number | undefined,
      reason: rule.reason as string | undefined,
      times: rule.times as number | undefined,
      delayMs: rule.delayMs as number | undefined,
      action: rule.action as SimRule['action'],
      timestamp: rule.timestamp as number | undefined,
    };
  });
}

export async function loadRulesFile(path: string): Promise<SimRule[]> {
  return validateRules(JSON.parse(await readFile(path, 'utf8')));
}

export function matchRule(rules: readonly SimRule[], token: string): SimRule | undefined {
  for (const r of rules) if (token.startsWith(r.prefix)) return r;
  return undefined;
}

/** What the simulator does for one attempt: an answer, a broken transport, or plain success. */
export type Outcome =
  | { kind: 'ok'; delayMs: number }
  | { kind: 'error'; status: number; reason: string; timestamp?: number; delayMs: number }
  | { kind: 'reset-stream' | 'goaway'; delayMs: number };

/** `attempt` is 1 for the first request for this token (counted before the call). */
export function decide(rule: SimRule | undefined, attempt: number): Outcome {
  if (!rule) return { kind: 'ok', delayMs: 0 };
  const delayMs = rule.delayMs ?? 0;
  const failing = rule.times === undefined || attempt <= rule.times;
  if (!failing) return { kind: 'ok', delayMs };
  if (rule.action) return { kind: rule.action, delayMs };
  if (rule.status === undefined || rule.status === 200) return { kind: 'ok', delayMs };
  const reason = rule.reason ?? DEFAULT_REASONS[rule.status] ?? 'InternalServerError';
  return {
    kind: 'error',
    status: rule.status,
    reason,
    timestamp: rule.status === 410 ? (rule.timestamp ?? Date.now()) : undefined,
    delayMs,
  };
}
