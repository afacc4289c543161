// What the OpenAPI document (document.ts) says beside its paths: its info, its tags, and its
// components (the security scheme, the rate headers, the shared responses every call's answers
// refer to, and the schemas of api/openapi/schemas.ts). The calls' own words are their
// declarations' (api/calls/); the document assembles them with these.
import { schemas } from './schemas.js';
import { RATE_HEADERS, header, json, ref } from './answers.js';

export const INFO = {
  title: 'Herald REST API',
  version: '1',
  description: 'Push notifications for iOS apps, compatible with OneSignal\'s REST calls: existing clients work with their base server set to /api/v1.',
  license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
};

export const TAGS = [
  { name: 'notifications', description: 'Sends and their reports (REST API key).' },
  { name: 'sdk', description: 'App-facing calls of the iOS SDK (app id only).' },
  { name: 'subscriptions', description: 'Installs of the app, read with its REST API key.' },
  { name: 'live activities', description: 'Start, update and end Live Activities (REST API key).' },
  { name: 'users', description: "OneSignal's users and aliases (REST API key)." },
  { name: 'segments', description: 'Segments: built-in, the App resource\'s (read-only) and the API\'s (REST API key).' },
  { name: 'templates', description: "Message templates a send names by template_id (REST API key)." },
  { name: 'apps', description: "The key's own app (getApp)." },
  { name: 'not served', description: "The official client's calls Herald does not serve, each answered with what to do instead." },
  { name: 'players', description: "OneSignal's v1 device calls: views of the installs (REST API key, or the App ID alone as the iOS SDK before 5)." },
];

export const COMPONENTS = {
  securitySchemes: {
    restApiKey: { type: 'apiKey', in: 'header', name: 'Authorization', description: '`Key <REST API key>` (also Basic and Bearer).' },
  },
  headers: {
    'RateLimit-Limit': header('Burst size of the bucket closest to empty.'),
    'RateLimit-Remaining': header('Tokens left in it.'),
    'RateLimit-Reset': header('Seconds until it is full.'),
    'RateLimit-Policy': header('One entry per bucket drawn.'),
    'X-RateLimit-Limit': header('As RateLimit-Limit.'),
    'X-RateLimit-Remaining': header('As RateLimit-Remaining.'),
    'X-RateLimit-Reset': header('Unix time when it is full (on a 429: now + Retry-After).'),
    'Retry-After': header('Seconds to wait.'),
  },
  responses: {
    BadRequest: { description: 'Malformed JSON, or a bad query parameter (named in the sentence).', content: json(ref('Errors')) },
    Unauthorized: { description: 'Missing, malformed, unknown or revoked key.', headers: { 'WWW-Authenticate': header('Key') }, content: json(ref('Errors')) },
    Forbidden: { description: 'Key used from outside its allow-list, app_id of another app, or a read key on a change.', content: json(ref('Errors')) },
    PaymentRequired: { description: "The app's invoice is overdue; nothing recorded.", content: json(ref('Errors')) },
    NotFound: { description: "Unknown id, another app's id, or an in-app card.", content: json(ref('Errors')) },
    Conflict: { description: 'An idempotent repeat still running, or a cancel of a finished send.', content: json(ref('Errors')) },
    TooLarge: { description: 'Body over 1 MB.', content: json(ref('Errors')) },
    UnsupportedMediaType: { description: 'Body not application/json.', content: json(ref('Errors')) },
    Invalid: { description: 'Rules broken: one sentence each.', content: json(ref('Errors')) },
    TooManyRequests: {
      description: 'A rate bucket is empty.',
      headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' }, ...RATE_HEADERS },
      content: json(ref('RateLimited')),
    },
    ServerError: { description: 'Unexpected failure; the sentence names the request id.', content: json(ref('Errors')) },
    Unavailable: { description: 'A server Herald needs is down; retry.', content: json(ref('Errors')) },
  },
  schemas,
};
