// When and how fast a send goes out: send_after, delayed_option, delivery_time_of_day and
// throttle_rate_per_minute (DECISIONS "Time"; contract "Throttling rules").
import type { FieldIssue } from '../errors.js';
import type { SendRequest } from '../send-model/request.js';
import { parseSendAfter, sendAfterWindow } from '../time/send-after.js';
import { parseTimeOfDay } from '../time/time-of-day.js';
import { LIMITS } from './limits.js';
import type { SendBody } from './send-schema.js';

export const THROTTLE_MESSAGE = `throttle_rate_per_minute is a whole number from ${LIMITS.throttle_min} to ${LIMITS.throttle_max}.`;
export const SEND_AFTER_UNREADABLE =
  'send_after is not a date and time Herald can read. Use RFC 3339, such as 2026-11-24T14:00:00-07:00.';
export const SEND_AFTER_PAST = 'send_after is more than 60 seconds in the past.';
export const SEND_AFTER_TOO_FAR = 'send_after is more than 30 days ahead.';

/**
 * A JSON integer, or a string of decimal digits: the official client types the field as a
 * string (DECISIONS "Bodies"). Anything else — decimals, signs, spaces, exponents — is refused.
 */
export function readThrottle(value: unknown, issues: FieldIssue[]): number | undefined {
  if (value === undefined) return undefined;
  let rate: number | undefined;
  if (typeof value === 'number' && Number.isInteger(value)) rate = value;
  else if (typeof value === 'string' && /^[0-9]{1,15}$/.test(value)) rate = Number(value);
  if (rate === undefined || rate < LIMITS.throttle_min || rate > LIMITS.throttle_max) {
    issues.push({ field: 'throttle_rate_per_minute', message: THROTTLE_MESSAGE });
    return undefined;
  }
  return rate;
}

export type Schedule = Pick<SendRequest, 'sendAfter' | 'timezoneDelivery' | 'lastActiveDelivery'>;

export function readSchedule(body: SendBody, now: Date, issues: FieldIssue[]): Schedule {
  const before = issues.length;
  const sendAfter = (message: string) => issues.push({ field: 'send_after', message });
  const schedule: Schedule = {};

  // Length first: nothing longer than the CRD's 64 characters is parsed.
  const tooLong = body.send_after !== undefined && body.send_after.length > LIMITS.send_after;
  const parsed = body.send_after === undefined || tooLong ? undefined : parseSendAfter(body.send_after);
  if (body.send_after !== undefined) {
    if (tooLong) {
      sendAfter(`send_after is longer than ${LIMITS.send_after} characters.`);
    } else if (!parsed) {
      sendAfter(SEND_AFTER_UNREADABLE);
    } else {
      const window = sendAfterWindow(parsed.date, now);
      if (window.kind === 'past') sendAfter(SEND_AFTER_PAST);
      else if (window.kind === 'too_far') sendAfter(SEND_AFTER_TOO_FAR);
      // Up to 60 s late is an immediate send, answered as such: no sendAfter.
      else if (window.kind === 'at') schedule.sendAfter = window.date;
    }
  }

  const timezone = body.delayed_option === 'timezone';
  // last-active (issue 38): send_after, if given, only moves the start of its 24 hours.
  const lastActive = body.delayed_option === 'last-active';
  if (body.delayed_option !== undefined && !timezone && !lastActive) {
    issues.push({ field: 'delayed_option', message: 'delayed_option is timezone or last-active.' });
  }
  let timeOfDay: string | undefined;
  if (body.delivery_time_of_day !== undefined) {
    // Bounded before it is read, as send_after is (the schema's maxLength; spaces around it are allowed).
    timeOfDay = body.delivery_time_of_day.length > LIMITS.delivery_time_of_day ? undefined : parseTimeOfDay(body.delivery_time_of_day);
    if (timeOfDay === undefined) {
      issues.push({ field: 'delivery_time_of_day', message: 'delivery_time_of_day must be a clock time such as 9:00AM or 21:45.' });
    } else if (lastActive) {
      issues.push({ field: 'delivery_time_of_day', message: 'delivery_time_of_day goes with delayed_option timezone; last-active sends each device at the time of day it was last active.' });
    } else if (!timezone && body.delayed_option === undefined) {
      // Ignoring it would send now what the caller meant for later.
      issues.push({ field: 'delivery_time_of_day', message: 'delivery_time_of_day needs delayed_option: timezone.' });
    }
  }
  if (timezone && body.send_after === undefined && body.delivery_time_of_day === undefined) {
    issues.push({ field: 'delayed_option', message: 'delayed_option timezone needs send_after or delivery_time_of_day.' });
  }

  if (issues.length > before) return {};
  if (lastActive) schedule.lastActiveDelivery = true;
  if (timezone) {
    // DECISIONS "Time": the clock time of delivery_time_of_day, else of send_after as written;
    // devices with no known zone use send_after's offset (UTC when there is none).
    schedule.timezoneDelivery = {
      timeOfDay: timeOfDay ?? parsed!.clock,
      fallbackOffsetMinutes: parsed?.offsetMinutes ?? 0,
    };
  }
  return schedule;
}
