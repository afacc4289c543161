// OneSignal's email and SMS fields in a send (issue 38 point 2): Herald sends push only, and a
// send that carries them meant to reach an inbox or a phone. Ignoring them as unknown fields would
// answer 200 for a message that never goes where it was meant to; each is a 422 saying so.
import type { FieldIssue } from '../errors.js';

export const PUSH_ONLY = 'Herald sends push only';

/** Fields that exist only for email or SMS messages (OneSignal's create-notification body). */
const EMAIL_SMS_FIELDS = [
  'email_subject', 'email_body', 'email_preheader', 'email_from_name', 'email_from_address', 'email_sender_domain',
  'email_reply_to_address', 'email_bcc', 'disable_email_click_tracking', 'include_unsubscribed', 'include_email_tokens',
  'sms_from', 'sms_media_urls', 'include_phone_numbers',
] as const;

/** Fields whose value names a channel: email or SMS there is refused, push is fine. */
const CHANNEL_FIELDS = ['target_channel', 'channel_for_external_user_ids'] as const;
const CHANNEL_FLAGS = ['isEmail', 'isSms', 'isSMS'] as const;

const present = (v: unknown) => v !== undefined && v !== null && v !== false && v !== '' && !(Array.isArray(v) && v.length === 0);

/** One 422 sentence per email or SMS field the body gives. */
export function otherChannelIssues(body: Record<string, unknown>): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const field of EMAIL_SMS_FIELDS) {
    if (present(body[field])) issues.push({ field, message: `${field}: ${PUSH_ONLY}; email and SMS are not part of Herald.` });
  }
  for (const field of CHANNEL_FLAGS) {
    if (body[field] === true) issues.push({ field, message: `${field}: ${PUSH_ONLY}; email and SMS are not part of Herald.` });
  }
  for (const field of CHANNEL_FIELDS) {
    const value = body[field];
    if (typeof value === 'string' && /^(email|sms)$/i.test(value)) {
      issues.push({ field, message: `${field} ${value.toLowerCase()}: ${PUSH_ONLY}; leave it out or set it to push.` });
    }
  }
  return issues;
}
