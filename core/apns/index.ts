import { createNodeApnClient } from './node-apn-client.js';
import { createLeanApnsClient } from './transport.js';
import type { ApnsClient, ApnsClientOptions, ApnsTarget } from './types.js';

/**
 * The APNs gateway adapter: the lean HTTP/2 transport by default, @parse/node-apn as the
 * conservative one (HERALD_APNS_CLIENT=node-apn). See docs/apns.md.
 */
export function createApnsClient(target: ApnsTarget, opts?: ApnsClientOptions): ApnsClient {
  return opts?.adapter === 'node-apn' ? createNodeApnClient(target, opts) : createLeanApnsClient(target, opts);
}

export { createNodeApnClient, resultOfNodeApn } from './node-apn-client.js';
export { createLeanApnsClient } from './transport.js';
export { resultOf } from './result.js';
export { apnsOrigin, APNS_PRODUCTION_URL, APNS_SANDBOX_URL, channelManagementOrigin } from './endpoint.js';
export { createChannelManager, type ChannelAnswer, type ChannelManager, type MessageStoragePolicy } from './channel-management.js';
export { ProviderTokenSigner } from './provider-token.js';
export type { ApnsAdapter, ApnsClient, ApnsClientOptions, ApnsCredentials, ApnsMessage, ApnsResult, ApnsTarget } from './types.js';
