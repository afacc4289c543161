// An APNs answer (or its absence) as an ApnsResult: the one place that reads Apple's error
// bodies, {"reason": "...", "timestamp"?: n}, and Retry-After.
import type { ApnsResult } from './types.js';

export type TransportFailureReason = 'ConnectionError' | 'StreamReset' | 'Timeout';

export interface RawAnswer {
  status: number;
  apnsId?: string;
  retryAfter?: string;
  body: string;
}

export type RequestOutcome = { ok: true; answer: RawAnswer } | { ok: false; reason: TransportFailureReason; detail: string };

export function resultOf(token: string, outcome: RequestOutcome): ApnsResult {
  if (!outcome.ok) return { token, status: 0, reason: outcome.reason };
  const { status, apnsId, retryAfter, body } = outcome.answer;
  const result: ApnsResult = { token, status };
  if (apnsId) result.apnsId = apnsId;
  if (status !== 200 && body) {
    try {
      const parsed = JSON.parse(body) as { reason?: unknown; timestamp?: unknown };
      if (typeof parsed.reason === 'string') result.reason = parsed.reason;
      if (typeof parsed.timestamp === 'number') result.timestamp = parsed.timestamp;
    } catch {
      result.reason = 'UnparsableResponse';
    }
  }
  if (retryAfter !== undefined) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds) && seconds >= 0) result.retryAfterMs = seconds * 1000;
  }
  return result;
}
