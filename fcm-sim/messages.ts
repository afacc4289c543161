// POST /v1/projects/{project_id}/messages:send, as FCM answers it: the bearer (401 UNAUTHENTICATED
// without an FcmError when missing, unknown, revoked or expired), the project (403
// PERMISSION_DENIED when the token's account belongs to another), the message's shape (400
// INVALID_ARGUMENT), then the rules by token prefix; else 200 {"name"}.
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import type { Logger } from 'pino';
import { answerJson, readBody } from './stream-body.js';
import { checkMessage } from './message-shape.js';
import type { TokenIssuer } from './oauth.js';
import type { FcmRecorder } from './recorder.js';
import { decide, errorBody, matchRule, type FcmSimRule } from './rules.js';

export interface MessagesState {
  issuer: TokenIssuer;
  recorder: FcmRecorder;
  rules: FcmSimRule[];
  logger: Logger;
}

const SEND_PATH = /^\/v1\/projects\/([a-z0-9-]{1,64})\/messages:send$/;
const MAX_BODY = 64 * 1024;

export function handleSendStream(state: MessagesState, stream: ServerHttp2Stream, headers: IncomingHttpHeaders): void {
  const path = String(headers[':path'] ?? '');
  const project = SEND_PATH.exec(path)?.[1];
  readBody(stream, MAX_BODY, (raw) => {
    const fail = (status: number, rpcStatus: string, message: string, errorCode?: string) => {
      state.recorder.answered(status, errorCode);
      answerJson(stream, { ':status': status }, errorBody(status, rpcStatus, message, errorCode));
    };
    if (!project || headers[':method'] !== 'POST') return fail(404, 'NOT_FOUND', `no route ${String(headers[':method'])} ${path}`);
    const bearer = /^Bearer (\S+)$/.exec(String(headers.authorization ?? ''))?.[1];
    const grant = bearer ? state.issuer.check(bearer) : undefined;
    if (!grant) return fail(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials. Expected OAuth 2 access token.');
    if (grant.projectId !== undefined && grant.projectId !== project) return fail(403, 'PERMISSION_DENIED', `Permission 'cloudmessaging.messages.create' denied on resource '//cloudresourcemanager.googleapis.com/projects/${project}'`);
    let body: unknown;
    try {
      body = JSON.parse(raw.toString());
    } catch {
      return fail(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.', 'INVALID_ARGUMENT');
    }
    const checked = checkMessage(body);
    if (!checked.message) return fail(400, 'INVALID_ARGUMENT', checked.error ?? 'invalid message', 'INVALID_ARGUMENT');
    const message = checked.message;
    const token = String(message.token ?? '');
    const outcome = decide(matchRule(state.rules, token), state.recorder.attempt(token));
    const answer = () => {
      const receivedAt = Date.now();
      if (outcome.kind === 'reset-stream') return stream.close(2 /* INTERNAL_ERROR */);
      if (outcome.kind === 'goaway') return stream.session?.goaway(2);
      if (outcome.kind === 'error') {
        state.recorder.answered(outcome.status, outcome.errorCode, { token, projectId: project, status: outcome.status, errorCode: outcome.errorCode, message, receivedAt });
        const h: Record<string, string | number> = { ':status': outcome.status };
        if (outcome.retryAfter !== undefined) h['retry-after'] = String(outcome.retryAfter);
        return answerJson(stream, h, errorBody(outcome.status, outcome.rpcStatus, `Requested entity ${outcome.errorCode}`, outcome.errorCode));
      }
      state.recorder.answered(200, undefined, { token, projectId: project, status: 200, message, receivedAt });
      answerJson(stream, { ':status': 200 }, { name: `projects/${project}/messages/0:${receivedAt}%${randomBytes(8).toString('hex')}` });
    };
    if (outcome.delayMs > 0) setTimeout(answer, outcome.delayMs);
    else answer();
  });
}
