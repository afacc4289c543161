// The status decision of a new send and its answer, straight from the contract's
// "States and transitions" and "Responses" tables.
import type { SendRequest } from './request.js';

export type SendStatus = 'queued' | 'sending' | 'scheduled' | 'approved' | 'draft';

export const MAX_AUDIENCE = 1_000_000;

export interface Decision {
  status: SendStatus;
  httpStatus: 200 | 202;
  message: string;
  /** Whether a plan job goes to the bus now. */
  plan: boolean;
}

const devices = (n: number) => `${n.toLocaleString('en-US')} device${n === 1 ? '' : 's'}`;

export function isBroadcast(req: Pick<SendRequest, 'target'>): boolean {
  return req.target.kind === 'segment' || req.target.kind === 'tag';
}

export function decideStatus(req: SendRequest, app: { hasCredentials: boolean }, estimate: number): Decision {
  if (!app.hasCredentials) {
    return {
      status: 'draft',
      httpStatus: 200,
      plan: false,
      message: "Saved as a draft and not sent: the app has no push key or certificate for Apple's gateway.",
    };
  }
  if (req.sendAfter || req.timezoneDelivery) {
    const when = req.sendAfter ? req.sendAfter.toISOString() : `${req.timezoneDelivery!.timeOfDay} in each device's time zone`;
    return { status: 'scheduled', httpStatus: 200, plan: false, message: `Scheduled for ${when}, to ${devices(estimate)} as of now.` };
  }
  if (estimate === 0) {
    return { status: 'approved', httpStatus: 200, plan: false, message: 'This notification reached no one: the audience is empty.' };
  }
  if (isBroadcast(req)) {
    return {
      status: 'queued',
      httpStatus: 202,
      plan: true,
      message: `Queued for ${devices(estimate)}; delivery goes on in the background.`,
    };
  }
  return { status: 'sending', httpStatus: 200, plan: true, message: `Sending to ${devices(estimate)}.` };
}

export function audienceTooLargeMessage(estimate: number): string {
  return `The audience has ${estimate.toLocaleString('en-US')} devices; one send reaches at most 1,000,000. Nothing was sent.`;
}
