// Fields Herald keeps with a send but never sends to a device: `name` (the send's internal name,
// shown in lists and reports), `custom_data` (returned by the send's stats) and `template_id` (the
// template its content came from: core/templates/apply-template.ts filled the body before these
// rules; the dashboard's report names it).
import type { FieldIssue } from '../errors.js';
import type { SendRequest } from '../send-model/request.js';
import { LIMITS } from './limits.js';
import type { SendBody } from './send-schema.js';
import { codePointLength } from './text.js';

export function readBookkeeping(body: SendBody, issues: FieldIssue[]): Pick<SendRequest, 'name' | 'customData' | 'templateId'> {
  const kept: Pick<SendRequest, 'name' | 'customData' | 'templateId'> = {};
  if (body.name !== undefined) {
    if (codePointLength(body.name) > LIMITS.name) issues.push({ field: 'name', message: `name is longer than ${LIMITS.name} characters.` });
    else if (body.name.trim() !== '') kept.name = body.name;
  }
  if (body.custom_data !== undefined) {
    const bytes = Buffer.byteLength(JSON.stringify(body.custom_data), 'utf8');
    if (bytes > LIMITS.custom_data_bytes) {
      issues.push({ field: 'custom_data', message: `custom_data is ${bytes} bytes as JSON; at most ${LIMITS.custom_data_bytes} are kept.` });
    } else if (Object.keys(body.custom_data).length > 0) {
      kept.customData = body.custom_data;
    }
  }
  // The schema has checked its shape (a UUID); stored in lower case, as the templates table keys it.
  if (typeof body.template_id === 'string') kept.templateId = body.template_id.toLowerCase();
  return kept;
}
