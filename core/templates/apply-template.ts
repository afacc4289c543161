// A send's template_id (issue 30 point 1; docs/api.md "Templates"): the template's fields fill the
// send body before its rules run, the body's own fields taking precedence field by field (a body
// with `contents` keeps its own texts whole, not merged per language). The merged body is what is
// validated and recorded, so a send never changes when its template does later; an idempotent
// repeat is recognised by the body as given (core/send/accept.ts), so it replays its first answer
// even after the template changed.
import { ValidationError } from '../errors.js';
import type { Queryable } from '../store/db.js';
import { quoted } from '../validation/text.js';
import { findTemplate } from './template-store.js';

export function unknownTemplate(id: string): string {
  return `template_id "${quoted(id)}" names no template of this app.`;
}

/** The body with its template's fields filled in, or the body itself when it names none. */
export async function withTemplate(db: Queryable, appId: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const id = body.template_id;
  // A wrong type is the shape check's sentence; a malformed id finds no template.
  if (typeof id !== 'string') return body;
  const template = await findTemplate(db, appId, id);
  if (!template) throw new ValidationError({ field: 'template_id', message: unknownTemplate(id) });
  const own = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== null && value !== undefined));
  return { ...template.content, ...own };
}
