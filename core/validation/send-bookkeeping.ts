// Fields Herald keeps with a send but never sends to a device: `name` (the send's internal name,
// shown in lists and reports) and `custom_data` (returned by the send's stats).
import type { SendRequest } from '../send/request.js';
import type { SendBody } from './send-schema.js';
import { codePointLength } from './text.js';

export const MAX_NAME_CHARS = 128;
/** custom_data as JSON text: bounded like a payload, since every stats read returns it. */
export const MAX_CUSTOM_DATA_BYTES = 2048;

export function readBookkeeping(body: SendBody, messages: string[]): Pick<SendRequest, 'name' | 'customData'> {
  const kept: Pick<SendRequest, 'name' | 'customData'> = {};
  if (body.name !== undefined) {
    if (codePointLength(body.name) > MAX_NAME_CHARS) messages.push(`name is longer than ${MAX_NAME_CHARS} characters.`);
    else if (body.name.trim() !== '') kept.name = body.name;
  }
  if (body.custom_data !== undefined) {
    const bytes = Buffer.byteLength(JSON.stringify(body.custom_data), 'utf8');
    if (bytes > MAX_CUSTOM_DATA_BYTES) {
      messages.push(`custom_data is ${bytes} bytes as JSON; at most ${MAX_CUSTOM_DATA_BYTES} are kept.`);
    } else if (Object.keys(body.custom_data).length > 0) {
      kept.customData = body.custom_data;
    }
  }
  return kept;
}
