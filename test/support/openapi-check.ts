// Checks a real answer of the api against the OpenAPI document (api/openapi/document.ts): the
// path and method must be documented, the status listed for that operation, and a JSON body valid
// against its schema (JSON Schema 2020-12, as OpenAPI 3.1 has it). The shared test client calls it
// on every answer under /api/v1, so every api suite checks the document as a side effect.
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../api/document.js';

type Doc = typeof openApiDocument;
interface Operation {
  responses: Record<string, { $ref?: string; content?: Record<string, { schema: unknown }> }>;
}

const ajv = new Ajv2020.default({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema({ $id: 'herald', components: openApiDocument.components }, 'herald');

const routes = Object.entries(openApiDocument.paths).map(([template, ops]) => ({
  re: new RegExp(`^/api/v1${template.replace(/\{[^{}]+\}/g, '[^/]+')}$`),
  ops: ops as unknown as Record<string, Operation>,
  parameters: template.split('{').length - 1,
}));
const validators = new Map<string, ReturnType<typeof ajv.compile>>();

function resolve(response: Operation['responses'][string]): Operation['responses'][string] {
  if (!response.$ref) return response;
  const name = response.$ref.split('/').pop()!;
  return (openApiDocument.components.responses as Doc['components']['responses'] & Record<string, Operation['responses'][string]>)[name];
}

/** Throws naming what the document does not say. Answers outside /api/v1 are not checked. */
export function checkAgainstOpenApi(method: string, url: string, status: number, contentType: string | null, body: unknown): void {
  const path = new URL(url, 'http://x').pathname;
  if (!path.startsWith('/api/v1/')) return;
  // Literal paths win over templates (/players/csv_export over /players/{id}), whatever the
  // document's order: the one with the fewest parameters among those that match.
  const route = routes.filter((r) => r.re.test(path)).sort((a, b) => a.parameters - b.parameters)[0];
  const op = route?.ops[method.toLowerCase()];
  if (!route || !op) {
    if (status === 404 || status === 405) return; // the router's own answer for an unknown path or method
    throw new Error(`OpenAPI: ${method} ${path} is not documented (answered ${status})`);
  }
  const documented = op.responses[String(status)];
  if (!documented) throw new Error(`OpenAPI: ${method} ${path} answered ${status}, which the document does not list`);
  const response = resolve(documented);
  const schema = response.content?.['application/json']?.schema;
  if (!schema) return;
  if (!contentType?.includes('application/json')) throw new Error(`OpenAPI: ${method} ${path} ${status} is not JSON (${contentType})`);
  const key = `${route.re.source} ${method} ${status}`;
  let validate = validators.get(key);
  if (!validate) {
    const rewritten = JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"herald#/components/'));
    validate = ajv.compile(rewritten);
    validators.set(key, validate);
  }
  if (!validate(body)) throw new Error(`OpenAPI: ${method} ${path} ${status} body does not match: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`);
}
