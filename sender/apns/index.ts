import { createNodeApnClient } from './node-apn-client.js';
import type { ApnsClient, ApnsClientOptions, ApnsTarget } from './types.js';

/** The production APNs gateway adapter: @parse/node-apn behind our interface (see docs/apns.md). */
export function createApnsClient(target: ApnsTarget, opts?: ApnsClientOptions): ApnsClient {
  return createNodeApnClient(target, opts);
}

export { createNodeApnClient, resultOfNodeApn } from './node-apn-client.js';
export { createHttp2ApnsClient, resultOf } from './client.js';
export { apnsOrigin, APNS_PRODUCTION_URL, APNS_SANDBOX_URL } from './endpoint.js';
export { ProviderTokenSigner } from './provider-token.js';
export type { ApnsClient, ApnsClientOptions, ApnsCredentials, ApnsMessage, ApnsResult, ApnsTarget } from './types.js';
