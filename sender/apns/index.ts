export { createApnsClient, resultOf } from './client.js';
export { apnsOrigin, APNS_PRODUCTION_URL, APNS_SANDBOX_URL } from './endpoint.js';
export { ProviderTokenSigner } from './provider-token.js';
export type { ApnsClient, ApnsClientOptions, ApnsCredentials, ApnsMessage, ApnsResult, ApnsTarget } from './types.js';
