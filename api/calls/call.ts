// One declaration per REST call (issue 36 point 1; docs/architecture.md "Declaring a call"), as
// Fastify declares a route with its schema: the method and path, who may make it, where it names
// its app, the rate bucket it draws, the schemas of its body and query, its answers and its
// handler. `mount` (./mount.ts) runs the guards, the draw and the checks of every call in the
// contract's order; the OpenAPI document (api/document.ts) is built from the same lists
// (api/routes/calls.ts), so no call is served undocumented nor documented unserved.
import type { Context } from 'koa';
import type { Static, TSchema } from 'typebox';
import type { Sentences } from '../../core/validation/checker.js';
import type { ApiDeps, ClassBucket, RateDraw } from '../shared/deps.js';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * Who may make the call:
 * - `public`: anyone (health, the document); no bucket;
 * - `key`: a REST key of any scope (401/403 drawing only `anonymous`);
 * - `send-key`: a REST key of scope `send` or above (a `read` key: 403);
 * - `app`: the app itself, by its App ID alone (the SDK's calls): the per-IP SDK bucket;
 * - `key-or-app`: a REST key when the request carries an Authorization header, else as `app`.
 */
export type Access = 'public' | 'key' | 'send-key' | 'app' | 'key-or-app';

/**
 * Where the call names its app, checked against the key's before the buckets are drawn (a REST
 * key's call naming another app: 403). `path`: `{app_id}`; `query`: `?app_id=` when given; `body`:
 * the body's `app_id` when given; `none`: the key's app. App-facing calls name it in the path.
 */
export type AppSource = 'path' | 'query' | 'body' | 'none';

/** The class bucket a keyed call draws, or how to tell it from the request (a send's body, `{}` when none). */
export type BucketOf = ClassBucket | ((ctx: Context, body: Readonly<Record<string, unknown>>) => Pick<RateDraw, 'bucket' | 'audience'>);

/** One documented answer: its description and the schema of its body (a component's name or a schema). */
export interface Answer {
  description: string;
  schema?: string | TSchema;
}

/** What a handler receives: the checked body and query, typed by the declaration's schemas. */
export interface CallInput<B, Q> {
  body: B;
  query: Q;
}

/** The handler's function, built once from the api's dependencies. */
export type Handler<B, Q> = (ctx: Context, input: CallInput<B, Q>) => Promise<void>;

/** The document's words for the call beyond what the declaration says itself. */
export interface CallDoc {
  tags: string[];
  summary: string;
  description?: string;
  /** Path, query and header parameters (OpenAPI parameter objects). */
  parameters?: unknown[];
  /** A request body documented otherwise than by `body` (a component's name). */
  requestBody?: unknown;
  /** Answers as OpenAPI response objects or references, by status: refusals and the like. */
  responses?: Record<string, unknown>;
  security?: unknown[];
  /** The HEAD operation the router answers beside a GET (koa-router serves both), if documented. */
  head?: unknown;
}

export interface Call<B extends TSchema | undefined = TSchema | undefined, Q extends TSchema | undefined = TSchema | undefined> {
  operationId: string;
  method: Method;
  /** The documented path under /api/v1, `{name}` for a path parameter. */
  path: string;
  access: Access;
  app?: AppSource;
  /** The 403's sentence when the named app is another (default: the key's `wrong_app` refusal). */
  otherApp?: string;
  /** The call must name its app (a `query` app_id the client always sends): naming none is the same 403. */
  appRequired?: boolean;
  bucket?: BucketOf;
  /** The body's schema (its value is checked after the buckets, before the handler). */
  body?: B;
  /** The body may be empty (then `{}`). */
  bodyOptional?: boolean;
  /** A body read as JSON but checked by the handler itself, in the contract's order of rules (a send's). */
  bodyUnchecked?: boolean;
  /** The call's own sentences for its body's fields (core/validation/checker.ts). */
  sentences?: Sentences;
  query?: Q;
  querySentences?: Sentences;
  /** The answers with a body, by status. */
  answers: Record<string, Answer>;
  doc: CallDoc;
  handler: (deps: ApiDeps) => Handler<B extends TSchema ? Static<B> : undefined, Q extends TSchema ? Static<Q> : undefined>;
}

/** A call's declaration, typed by its schemas (the identity: it lets TypeScript infer the handler's input). */
export function declare<B extends TSchema | undefined = undefined, Q extends TSchema | undefined = undefined>(call: Call<B, Q>): Call {
  return call as unknown as Call;
}
