// Shared by the validation tests: a valid body to vary, and assertions on the 422.
import { expect } from 'chai';
import { ValidationError } from '../errors.js';
import type { SendRequest } from '../send-model/request.js';
import { validateSendRequest, type SendValidationInput } from './validate-send.js';

export const APP = {
  id: '0b7e4a4e-3b0a-4d3c-9a43-6f1f4b7f6d0e',
  bundleId: 'com.example.news',
  segmentNames: ['VIP', 'Beta Testers'],
};
export const NOW = new Date('2026-03-01T12:00:00.000Z');

/** A valid body, with `changes` applied; a change to undefined removes the field. */
export function body(changes: Record<string, unknown> = {}): Record<string, unknown> {
  const out: Record<string, unknown> = {
    app_id: APP.id,
    contents: { en: 'Hello' },
    included_segments: ['Subscribed Users'],
  };
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) delete out[key];
    else out[key] = value;
  }
  return out;
}

export function validate(
  changes: Record<string, unknown> = {},
  extra: Partial<SendValidationInput> = {},
): SendRequest {
  return validateSendRequest({ body: body(changes), app: APP, now: NOW, ...extra });
}

/** The messages of the 422 thrown for `run`; fails the test when it does not throw one. */
export function problems(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(ValidationError);
    expect((error as ValidationError).status).to.equal(422);
    return (error as ValidationError).messages;
  }
  expect.fail('expected a 422 ValidationError');
}
