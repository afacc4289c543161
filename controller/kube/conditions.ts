// metav1.Condition handling in the manner of cert-manager's pkg/api/util/conditions.go: setting a
// condition keeps its lastTransitionTime unless its status flips, and always stamps the
// generation it was computed from.

export type ConditionStatus = 'True' | 'False' | 'Unknown';

export interface Condition {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

export interface ConditionInput {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
}

/** API servers store times to the second; so do we, so that an unchanged condition compares equal. */
export const kubeTime = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Returns a new list with `input` set; other conditions are kept as they are. */
export function setCondition(conditions: readonly Condition[] | undefined, input: ConditionInput, generation: number | undefined, now: Date): Condition[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === input.type);
  const previous = i >= 0 ? list[i] : undefined;
  const next: Condition = {
    type: input.type,
    status: input.status,
    reason: input.reason,
    message: input.message,
    lastTransitionTime: previous && previous.status === input.status ? previous.lastTransitionTime : kubeTime(now),
  };
  if (generation !== undefined) next.observedGeneration = generation;
  if (i >= 0) list[i] = next;
  else list.push(next);
  return list;
}

export function getCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/** Deep equality of two JSON values (key order ignored), to write status only when it changed. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => jsonEqual(v, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  return ak.length === bk.length && ak.every((k) => jsonEqual(ao[k], bo[k]));
}
