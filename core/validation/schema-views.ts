// Views of the send body's one schema (send-body-schema.ts) for each reader: the api's shape
// check (ajv), the OpenAPI document and the Send CRD. Each view is a pure function of the one
// definition, so adding a field there adds it everywhere.
import { SendBodySchema } from './send-body-schema.js';

type Json = Record<string, unknown>;

/** Limits the api's rule stage checks itself, each with its own sentence. */
const RULE_STAGE_KEYWORDS = new Set(['maxLength', 'minLength', 'maxItems', 'minItems', 'maxProperties', 'minProperties', 'pattern', 'format']);

/** A plain JSON copy (TypeBox's own markers are not enumerable, so they are left behind). */
function plain(schema: unknown): Json {
  return JSON.parse(JSON.stringify(schema)) as Json;
}

function mapSchema(node: unknown, visit: (node: Json) => Json | undefined): unknown {
  if (Array.isArray(node)) return node.map((n) => mapSchema(n, visit));
  if (typeof node !== 'object' || node === null) return node;
  const seen = visit(node as Json);
  if (seen === undefined) return undefined;
  const out: Json = {};
  for (const [key, value] of Object.entries(seen)) {
    // `properties` holds field names, not keywords: its values are schemas, its keys stay.
    if (key === 'properties') {
      const props: Json = {};
      for (const [name, sub] of Object.entries(value as Json)) {
        const mapped = mapSchema(sub, visit);
        if (mapped !== undefined) props[name] = mapped;
      }
      out[key] = props;
    } else if (key === 'enum' || key === 'required' || key === 'const' || key === 'examples') {
      out[key] = value;
    } else {
      out[key] = mapSchema(value, visit);
    }
  }
  return out;
}

const withoutMarkers = (node: Json): Json => {
  const { 'x-herald-shape': _shape, 'x-herald-free': _free, ...rest } = node;
  return rest;
};

/** The api's stage (a): JSON types only (unknown fields allowed and ignored). `body`: another body's schema (Live Activities). */
export function shapeSchema(body: unknown = SendBodySchema): Json {
  return mapSchema(plain(body), (node) => {
    const how = node['x-herald-shape'];
    if (how === 'any') return undefined;
    if (how === 'object' || how === 'array') return { type: how };
    const kept: Json = {};
    for (const [key, value] of Object.entries(withoutMarkers(node))) {
      if (!RULE_STAGE_KEYWORDS.has(key) && key !== 'description') kept[key] = value;
    }
    return kept;
  }) as Json;
}

/** The OpenAPI 3.1 request schema (JSON Schema 2020-12), limits included. */
export function openApiSendRequest(description: string, body: unknown = SendBodySchema): Json {
  const schema = mapSchema(plain(body), withoutMarkers) as Json;
  return { ...schema, description };
}

/**
 * The Send CRD's `spec`: the body's fields with appRef in place of app_id, plus `cancel`.
 * Structural as Kubernetes requires: every node typed, free objects kept with
 * x-kubernetes-preserve-unknown-fields, no `format` the apiserver would not know.
 */
export function crdSpecProperties(): Json {
  const body = mapSchema(plain(SendBodySchema), (node) => {
    const rest = withoutMarkers(node);
    if (node['x-herald-free'] === true) return { ...rest, 'x-kubernetes-preserve-unknown-fields': true };
    return rest;
  }) as { properties: Json };
  const { app_id: _appId, ...fields } = body.properties;
  return {
    appRef: {
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string', minLength: 1, maxLength: 253 } },
    },
    ...fields,
    cancel: {
      type: 'boolean',
      description: 'true stops the send as DELETE /api/v1/notifications/{id} does: no new chunk starts, the rest are never sent. Deleting the Send does not cancel.',
    },
  };
}
