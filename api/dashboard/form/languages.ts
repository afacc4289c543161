// The order a message's languages are shown and filled in: the default first (en, else contents'
// first, as the send's language rule picks it), then the rest in the order written. The report,
// Review and the forms a template fills read it here.
import type { MessageFields } from '../../../core/dashboard-reads/send-message.js';

/** The languages of a message: the default first (en, else contents' first), then the rest in the order written. */
export function languagesOf(m: Pick<MessageFields, 'contents' | 'headings' | 'subtitle'>): string[] {
  const all = [...Object.keys(m.contents), ...Object.keys(m.headings ?? {}), ...Object.keys(m.subtitle ?? {})];
  const first = Object.hasOwn(m.contents, 'en') ? 'en' : Object.keys(m.contents)[0];
  return [...new Set(first === undefined ? all : [first, ...all])];
}
