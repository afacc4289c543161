// The Live Activity calls' limits at their edges, through validation: the shape check leaves
// lengths to the rule stage (schema-views.ts), so each one the bodies' schema states (and so the
// OpenAPI document) must be checked there too. `ios_sound` and its older name `sound` were not:
// 300 characters passed where the document says 255 and a send refuses 256.
import { expect } from 'chai';
import { ValidationError, type FieldIssue } from '../errors.js';
import { LIMITS } from './limits.js';
import { StartLiveActivityBodySchema, UpdateLiveActivityBodySchema } from './live-activity-schema.js';
import { validateLiveActivityRequest, type LiveActivityValidationInput } from './validate-live-activity.js';

const app = { id: '0b7e4a4e-3b0a-4d3c-9a43-6f1f4b7f6d0e', bundleId: 'com.example.news', segmentNames: [] };
const calls: Array<[string, LiveActivityValidationInput['call'], Record<string, unknown>]> = [
  ['updateLiveActivity', { event: 'update', activityId: 'match-7' }, { event: 'update', event_updates: { score: 1 } }],
  ['startLiveActivity', { event: 'start', activityType: 'MatchAttributes' }, { activity_id: 'match-8', event_updates: { score: 0 }, event_attributes: {}, included_segments: ['Subscribed Users'] }],
];

function issuesOf(call: LiveActivityValidationInput['call'], body: Record<string, unknown>): FieldIssue[] {
  try {
    validateLiveActivityRequest({ call, body, app, now: new Date('2026-03-01T12:00:00Z') });
    return [];
  } catch (error) {
    if (error instanceof ValidationError) return error.issues;
    throw error;
  }
}

describe('Live Activity calls: the sound at its limit', () => {
  for (const [name, call, base] of calls) {
    for (const field of ['ios_sound', 'sound']) {
      it(`${name}: ${field} of ${LIMITS.ios_sound} characters accepted, ${LIMITS.ios_sound + 1} refused naming ${field}`, () => {
        const at = (n: number) => ({ ...base, contents: { en: 'Goal!' }, [field]: 's'.repeat(n) });
        expect(issuesOf(call, at(LIMITS.ios_sound))).to.deep.equal([]);
        expect(issuesOf(call, at(LIMITS.ios_sound + 1))).to.deep.equal([{ field, message: `${field} is longer than ${LIMITS.ios_sound} characters.` }]);
      });
    }
  }

  it('the bodies\' schema (the OpenAPI document) states the same limit', () => {
    for (const schema of [UpdateLiveActivityBodySchema, StartLiveActivityBodySchema]) {
      const props = schema.properties as Record<string, { maxLength?: number }>;
      expect([props.ios_sound.maxLength, props.sound.maxLength]).to.deep.equal([LIMITS.ios_sound, LIMITS.ios_sound]);
    }
  });
});
