// The FCM gateway adapter (issue 39): the lean HTTP v1 client, its access tokens and its outcome table.
export { createFcmClient, fcmOrigin } from './client.js';
export { FcmAccessTokens, FcmCredentialsRefusedError, FcmTokenUnavailableError, type AccessTokenOptions } from './access-token.js';
export { FcmKeyError, FCM_SCOPE, signAssertion, loadServiceAccountKey } from './assertion.js';
export { fcmActionFor, DEAD_TOKEN_CODES, TOKEN_REFUSED } from './outcomes.js';
export { resultOf, errorCodeOf } from './result.js';
export { FCM_PRODUCTION_URL, type FcmClient, type FcmClientOptions, type FcmMessage, type FcmResult, type FcmTarget } from './types.js';
export { FcmClients, FcmCredentialsUnusableError, type FcmSettings } from './clients.js';
export { recordFcmRefusal, clearFcmRefusal, fcmRefusal, type FcmRefusal } from './refusals.js';
