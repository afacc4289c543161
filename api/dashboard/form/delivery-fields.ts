// When and how fast a composed send goes out (issue 40 point 4): the time to send in a chosen time
// zone (empty: now), per-time-zone delivery (each device at that clock time in its own zone:
// delayed_option "timezone"), last-active delivery (each device at the hour of the day it was last
// active, within 24 hours of the time given or of now: delayed_option "last-active"), and the
// throttle. The form never writes delivery_time_of_day, which REST refuses with last-active.
import { parseSendAfter } from '../../../core/time/send-after.js';
import { zonedInstant } from '../../../core/time/zone-clock.js';
import { LIMITS } from '../../../core/validation/limits.js';
import { html } from '../html.js';
import { TIME_ZONES } from './choices.js';
import { described, errorsFor, options, type FormField } from './form-field.js';

/** delayed_option's values the form offers ('' : at the same moment everywhere). */
export const DELIVERY_OPTIONS = [
  ['', 'At that moment everywhere'],
  ['timezone', "At that clock time on each device, in its own zone"],
  ['last-active', 'At the hour each device was last active'],
] as const;

const LOCAL_TIME = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d)$/;
const pad = (n: number) => String(Math.floor(Math.abs(n))).padStart(2, '0');

/**
 * The send_after a datetime-local value stands for in a time zone: that instant, written with the
 * zone's offset there (so its clock time is the one typed, which per-time-zone delivery reads). What
 * is not one (an unknown zone, a date or hour that does not exist such as 30 February or 24:00) is
 * passed on as written, so send_after's rule refuses it with its sentence, as in UTC and over REST.
 */
export function sendAfterIn(local: string, zone: string): string {
  if (/Z$|[+-]\d\d:\d\d$/.test(local)) return local;
  const m = LOCAL_TIME.exec(local);
  if (!zone || zone === 'UTC') return m ? `${local}Z` : local;
  // zonedInstant would roll an impossible time over (30 February to 2 March), so the REST rule's
  // own parser decides first whether the wall-clock time exists at all.
  if (!m || !TIME_ZONES.includes(zone) || !parseSendAfter(`${local}Z`)) return `${local} ${zone}`;
  const [y, mo, d, h, mi] = m.slice(1).map(Number);
  const instant = zonedInstant({ zone }, y, mo, d, h, mi);
  const offset = (Date.UTC(y, mo - 1, d, h, mi) - instant.getTime()) / 60_000;
  return `${local}:00${offset < 0 ? '-' : '+'}${pad(offset / 60)}:${pad(offset % 60)}`;
}

export const whenField: FormField = {
  area: 'send_after',
  body: ['send_after', 'delayed_option', 'delivery_time_of_day'],
  inputs: /^(send_after|send_tz|delayed_option)$/,
  render: (form, ctx) => html`<div class="tag-row">
      <label>Send at (empty: now) <input type="datetime-local" name="send_after" value="${form.send_after ?? ''}" ${described('send_after', ctx)}></label>
      <label>Time zone <select name="send_tz">${TIME_ZONES.map((z) => html`<option ${(form.send_tz ?? 'UTC') === z ? html`selected` : ''}>${z}</option>`)}</select></label>
      <label>Delivered <select name="delayed_option">${options(DELIVERY_OPTIONS, form.delayed_option ?? '')}</select></label>
    </div>
    <p class="note">In each device's own time zone, a device whose zone is unknown gets it at that time in the zone chosen here. At the hour each device was last active: within 24 hours of the time given (empty: now); a device never active gets it at the start.</p>
    ${errorsFor('send_after', ctx)}`,
  toBody(form, body) {
    if (form.send_after) body.send_after = sendAfterIn(form.send_after, form.send_tz ?? 'UTC');
    if (form.delayed_option) body.delayed_option = form.delayed_option;
  },
};

export const throttleField: FormField = {
  area: 'throttle',
  body: ['throttle_rate_per_minute'],
  inputs: /^throttle$/,
  render: (form, ctx) => html`<label>Throttle (devices per minute, empty: none) <input name="throttle" inputmode="numeric" value="${form.throttle ?? ''}" maxlength="${String(LIMITS.throttle_max).length}" ${described('throttle', ctx)}></label>${errorsFor('throttle', ctx)}`,
  toBody(form, body) {
    if (form.throttle) body.throttle_rate_per_minute = /^\d+$/.test(form.throttle) ? Number(form.throttle) : form.throttle;
  },
};
