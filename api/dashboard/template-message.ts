// A template's content as the message it makes (issue 30 point 6): read by the send's own rules
// (validateSendRequest), as a send naming it would be before its audience is known, so a template's
// page shows exactly what its sends carry (the button, the data cut to its limits, the iOS fields by
// the names the report uses). A template stored under older rules that no longer pass is shown as
// written, with the sentences of the rules it fails.
import type { AppRecord } from '../../core/apps/app-store.js';
import type { MessageFields } from '../../core/dashboard-reads/send-message.js';
import { ValidationError } from '../../core/errors.js';
import { rulesApp } from '../../core/send/accept.js';
import type { Template } from '../../core/templates/template-store.js';
import { validateSendRequest } from '../../core/validation/validate-send.js';

export type TemplateMessage = { ok: true; message: MessageFields } | { ok: false; problems: string[] };

export function templateMessage(app: AppRecord, template: Template, now: Date): TemplateMessage {
  try {
    // The rules need an audience and a template has none: the template's own id stands for one
    // install (any UUID is a well-formed Subscription ID; nothing is counted or sent).
    const request = validateSendRequest({ body: { ...template.content, app_id: app.id, include_subscription_ids: [template.id] }, app: rulesApp(app), now });
    const { contents, headings, subtitle, url, imageUrl, data, button, apns, android, platforms } = request;
    return { ok: true, message: { contents, headings, subtitle, url, imageUrl, data, button, apns, android, platforms } };
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return { ok: false, problems: error.issues.map((i) => i.message) };
  }
}
