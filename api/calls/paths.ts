// The document's paths, built from the calls' declarations (api/calls/): what a declaration says
// (its path parameters, its query and body schemas, its answers, who may call) is written into
// its operation here, so the document cannot say otherwise than the mount does.
import type { TSchema } from 'typebox';
import type { Call } from './call.js';
import { ok, json } from '../openapi/answers.js';

type Operation = Record<string, unknown>;

/** The path's `{name}` parameters the declaration does not document itself. */
function pathParameters(call: Call, documented: unknown[]): unknown[] {
  const named = new Set(documented.map((p) => (p as { name?: string }).name));
  return [...call.path.matchAll(/\{(\w+)\}/g)]
    .map((m) => m[1]!)
    .filter((name) => !named.has(name))
    .map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
}

/** The query schema's properties as query parameters. */
function queryParameters(query: TSchema | undefined): unknown[] {
  if (!query) return [];
  const { properties = {}, required = [] } = query as { properties?: Record<string, { description?: string }>; required?: string[] };
  return Object.entries(properties).map(([name, schema]) => ({
    name,
    in: 'query',
    required: required.includes(name),
    ...(schema.description ? { description: schema.description } : {}),
    schema,
  }));
}

/** Who may call, as the document's security (the global one is a REST key). */
function security(call: Call): { security?: unknown[] } {
  if (call.doc.security) return { security: call.doc.security };
  if (call.access === 'public' || call.access === 'app') return { security: [] };
  if (call.access === 'key-or-app') return { security: [{ restApiKey: [] }, {}] };
  return {};
}

function operationOf(call: Call): Operation {
  const documented = call.doc.parameters ?? [];
  const parameters = [...pathParameters(call, documented), ...documented, ...queryParameters(call.query)];
  const requestBody = call.doc.requestBody ?? (call.body ? { required: !call.bodyOptional, content: json(call.body) } : undefined);
  const answers = Object.fromEntries(
    Object.entries(call.answers).map(([status, answer]) => [status, answer.schema === undefined ? { description: answer.description } : ok(answer.description, answer.schema)]),
  );
  return {
    operationId: call.operationId,
    tags: call.doc.tags,
    summary: call.doc.summary,
    ...(call.doc.description ? { description: call.doc.description } : {}),
    ...security(call),
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses: { ...answers, ...call.doc.responses },
  };
}

/** The document's `paths` of `calls` (a path's methods gathered under it). */
export function pathsOf(calls: readonly Call[]): Record<string, Record<string, Operation>> {
  const paths: Record<string, Record<string, Operation>> = {};
  for (const call of calls) {
    const methods = (paths[call.path] ??= {});
    if (methods[call.method]) throw new Error(`${call.method.toUpperCase()} ${call.path} is declared twice`);
    methods[call.method] = operationOf(call);
    if (call.doc.head) methods.head = call.doc.head as Operation;
  }
  return paths;
}

