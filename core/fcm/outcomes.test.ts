// The FCM outcome table (issue 39 point 5), row by row, including the answers fcm-sim's rules do not script.
import { expect } from 'chai';
import { fcmActionFor } from './outcomes.js';
import { errorCodeOf } from './result.js';

describe('FCM outcomes', () => {
  const rows: Array<[string, { status: number; errorCode?: string; retryAfterMs?: number }, object]> = [
    ['200', { status: 200 }, { kind: 'sent' }],
    ['404 UNREGISTERED', { status: 404, errorCode: 'UNREGISTERED' }, { kind: 'unsubscribe', reason: 'UNREGISTERED' }],
    ['403 SENDER_ID_MISMATCH', { status: 403, errorCode: 'SENDER_ID_MISMATCH' }, { kind: 'unsubscribe', reason: 'SENDER_ID_MISMATCH' }],
    ['404 NOT_FOUND (no such project)', { status: 404, errorCode: 'NOT_FOUND' }, { kind: 'stop', reason: 'NOT_FOUND' }],
    ['403 PERMISSION_DENIED', { status: 403, errorCode: 'PERMISSION_DENIED' }, { kind: 'stop', reason: 'PERMISSION_DENIED' }],
    ['400 INVALID_ARGUMENT', { status: 400, errorCode: 'INVALID_ARGUMENT' }, { kind: 'failed', reason: 'INVALID_ARGUMENT' }],
    ['400 without a body', { status: 400 }, { kind: 'failed', reason: 'HTTP400' }],
    ['413', { status: 413 }, { kind: 'failed', reason: 'HTTP413' }],
    ['429 QUOTA_EXCEEDED', { status: 429, errorCode: 'QUOTA_EXCEEDED', retryAfterMs: 60_000 }, { kind: 'hold', reason: 'QUOTA_EXCEEDED', retryAfterMs: 60_000 }],
    ['503 UNAVAILABLE', { status: 503, errorCode: 'UNAVAILABLE' }, { kind: 'hold', reason: 'UNAVAILABLE', retryAfterMs: undefined }],
    ['500 INTERNAL', { status: 500, errorCode: 'INTERNAL' }, { kind: 'hold', reason: 'INTERNAL', retryAfterMs: undefined }],
    ['502 without a body', { status: 502 }, { kind: 'hold', reason: 'HTTP502', retryAfterMs: undefined }],
    ['0 (no answer)', { status: 0 }, { kind: 'hold', reason: 'ConnectionError', retryAfterMs: undefined }],
    ['401 THIRD_PARTY_AUTH_ERROR', { status: 401, errorCode: 'THIRD_PARTY_AUTH_ERROR' }, { kind: 'stop', reason: 'THIRD_PARTY_AUTH_ERROR' }],
    ['401 after a fresh token', { status: 401, errorCode: 'UNAUTHENTICATED' }, { kind: 'stop', reason: 'UNAUTHENTICATED' }],
    ['the token endpoint refusing', { status: 401, errorCode: 'TOKEN_REFUSED' }, { kind: 'stop', reason: 'TOKEN_REFUSED' }],
  ];
  for (const [name, result, action] of rows) it(name, () => expect(fcmActionFor(result)).to.deep.equal(action));

  it('reads the FcmError of details first, the rpc status otherwise, nothing from a non-JSON body', () => {
    const details = [{ '@type': 'type.googleapis.com/google.rpc.BadRequest' }, { '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: 'UNREGISTERED' }];
    expect(errorCodeOf(JSON.stringify({ error: { code: 404, status: 'NOT_FOUND', details } }))).to.equal('UNREGISTERED');
    expect(errorCodeOf(JSON.stringify({ error: { code: 403, status: 'PERMISSION_DENIED' } }))).to.equal('PERMISSION_DENIED');
    expect(errorCodeOf('<html>')).to.equal(undefined);
    expect(errorCodeOf('null')).to.equal(undefined);
  });
});
