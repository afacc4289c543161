// The first status of a new send and its answer: the transitions table's `accept` rows
// (transitions.ts), plus the HTTP status of the contract's "Responses" table.
import type { SendRequest } from './request.js';
import { nextStep } from './transitions.js';
import { isUnderwayStatus, type SendStatus } from './states.js';

export const MAX_AUDIENCE = 1_000_000;

export interface Decision {
  status: SendStatus;
  httpStatus: 200 | 202;
  message: string;
  /** Whether it is delivered now (queued or sending). */
  plan: boolean;
}

const devices = (n: number) => `${n.toLocaleString('en-US')} device${n === 1 ? '' : 's'}`;

/**
 * `broadcast`: the target is a condition on installs (core/audience/target-kinds.ts
 * isConditionTarget; this leaf folder cannot ask the table itself).
 */
export function decideStatus(req: SendRequest, app: { hasCredentials: boolean }, estimate: number, broadcast: boolean): Decision {
  const scheduledFor = req.sendAfter
    ? req.sendAfter.toISOString()
    : req.timezoneDelivery
      ? `${req.timezoneDelivery.timeOfDay} in each device's time zone`
      : req.lastActiveDelivery
        ? 'the time of day each device was last active'
        : undefined;
  const step = nextStep('new', 'accept', { hasCredentials: app.hasCredentials, scheduledFor, audience: estimate, broadcast })!;
  const plan = isUnderwayStatus(step.to);
  return { status: step.to, httpStatus: step.to === 'queued' ? 202 : 200, message: step.message!, plan };
}

export function audienceTooLargeMessage(estimate: number): string {
  return `The audience has ${devices(estimate)}; one send reaches at most 1,000,000. Nothing was sent.`;
}
