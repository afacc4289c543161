import { expect } from 'chai';
import { SEND_BODY_FIELDS } from './send-body-schema.js';
import { SHAPE_MESSAGES } from './send-schema.js';
import { shapeSchema } from './schema-views.js';

describe("the send body's one schema", () => {
  it('has a sentence naming the field for every field the shape check types', () => {
    const typed = Object.keys((shapeSchema() as { properties: Record<string, unknown> }).properties);
    expect(typed.filter((field) => SHAPE_MESSAGES[field] === undefined)).to.deep.equal([]);
  });

  it('leaves to the rule stage only the fields it reads itself', () => {
    const typed = new Set(Object.keys((shapeSchema() as { properties: Record<string, unknown> }).properties));
    expect(SEND_BODY_FIELDS.filter((field) => !typed.has(field))).to.deep.equal(['throttle_rate_per_minute', 'idempotency_key', 'external_id']);
  });
});
