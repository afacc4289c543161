// The limits of the template calls (issue 30 point 1), stated once: the body's rules
// (template-schema.ts), the store's count check, the list's page and the OpenAPI document read them
// here. A template is read by id only (a send's template_id, viewTemplate), so the count per app
// bounds storage and the list, not a send's work.
import { LIMITS } from '../validation/limits.js';

export const TEMPLATE_LIMITS = {
  /** A template's name: as a send's `name` (never sent to devices). */
  name: LIMITS.name,
  /** Templates one app may keep. */
  per_app: 1000,
  /** viewTemplates' page (OneSignal: limit "Default and max is 50"). */
  page_max: 50,
} as const;
