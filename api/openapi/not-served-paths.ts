// The official client's calls Herald does not serve, in the OpenAPI document (issue 38 point 2):
// each with the one answer it gets and that answer's sentence, from the router's own list
// (api/routes/not-served.ts).
import { NOT_SERVED } from '../routes/not-served.js';
import { pathParam, type Helpers } from './path-helpers.js';

/** `alongside`: served calls on the same paths (getApp beside updateApp), kept. */
export function notServedPaths({ json, ref }: Helpers, alongside: Record<string, Record<string, unknown>> = {}): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = Object.fromEntries(Object.entries(alongside).map(([path, ops]) => [path, { ...ops }]));
  for (const entry of NOT_SERVED) {
    const template = entry.path.replace(/:(\w+)/g, '{$1}');
    const params = [...entry.path.matchAll(/:(\w+)/g)].map((m) => pathParam(m[1], 'Any value: the call is not served.'));
    paths[template] ??= {};
    paths[template][entry.method] = {
      operationId: entry.call,
      tags: ['not served'],
      security: [],
      summary: `Not served: ${entry.sentence}`,
      parameters: params,
      responses: { [String(entry.status)]: { description: entry.sentence, content: json(ref('Errors')) } },
    };
  }
  return paths;
}
