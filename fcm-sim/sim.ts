// startFcmSim: FCM HTTP v1 and Google's token endpoint, simulated (issue 39 point 7), as a library
// (tests, benchmarks, `herald fcm-sim`). Three listeners, as Google has separate hosts: messages:send
// on HTTP/2 over TLS, the token endpoint on HTTPS/1.1 (both with the apns-sim's throw-away CA: trust
// it with HERALD_FCM_CA_FILE), and a plain HTTP control port (control.ts).
import { createSecureServer, type ServerHttp2Session } from 'node:http2';
import { createServer as createHttpsServer } from 'node:https';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { ensureServerCertificate } from '../apns-sim/certs.js';
import { createFcmControlServer } from './control.js';
import { handleSendStream, type MessagesState } from './messages.js';
import { TokenIssuer, type SimAccount } from './oauth.js';
import { FcmRecorder, type FcmDelivery, type FcmSimStats } from './recorder.js';
import { loadRulesFile, validateRules, type FcmSimRule } from './rules.js';

export interface FcmSimOptions {
  host?: string;
  /** messages:send port (HTTP/2, TLS); 0 (default) picks a free one. */
  port?: number;
  /** Token endpoint port (HTTPS); 0 (default) picks a free one. */
  tokenPort?: number;
  controlPort?: number;
  /** Where the CA and server certificate are written (reused if present). Default: a new temp dir. */
  certDir?: string;
  /** Service accounts whose assertions are checked; none: any well-formed assertion passes. */
  accounts?: SimAccount[];
  /** expires_in of the access tokens issued (default 3600). */
  tokenLifetimeS?: number;
  rules?: FcmSimRule[];
  rulesFile?: string;
  /** Messages kept for deliveries() (default 10,000; 0 keeps none). */
  maxDeliveries?: number;
  /** SETTINGS_MAX_CONCURRENT_STREAMS advertised per connection (default 100, as FCM is observed to). */
  maxConcurrentStreams?: number;
  logger?: Logger;
}

export interface FcmSim {
  /** https://127.0.0.1:<port>: HERALD_FCM_URL. */
  url: string;
  /** https://127.0.0.1:<tokenPort>/token: the service account's token_uri. */
  tokenUri: string;
  controlUrl: string;
  caFile: string;
  stats(): FcmSimStats;
  deliveries(token?: string): FcmDelivery[];
  attempts(token: string): number;
  setRules(rules: FcmSimRule[]): void;
  /** Every access token issued so far is refused from now on (401). */
  revokeAccessTokens(): void;
  reset(): void;
  close(): Promise<void>;
}

function listen(server: Server | import('node:http2').Http2SecureServer, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

const urlHost = (host: string) => (host.includes(':') ? `[${host}]` : host);

export async function startFcmSim(opts: FcmSimOptions = {}): Promise<FcmSim> {
  const host = opts.host ?? '127.0.0.1';
  const logger = opts.logger ?? pino({ level: 'silent' });
  const certDir = opts.certDir ?? (await mkdtemp(join(tmpdir(), 'herald-fcm-sim-')));
  const pki = await ensureServerCertificate(certDir);
  const issuer = new TokenIssuer(opts.accounts ?? [], opts.tokenLifetimeS);
  const recorder = new FcmRecorder(opts.maxDeliveries ?? 10_000);
  const state: MessagesState = { issuer, recorder, rules: validateRules([...(opts.rules ?? []), ...(opts.rulesFile ? await loadRulesFile(opts.rulesFile) : [])]), logger };
  const tls = { key: await readFile(pki.keyFile), cert: await readFile(pki.certFile) };

  const fcm = createSecureServer({ ...tls, allowHTTP1: false, settings: { maxConcurrentStreams: opts.maxConcurrentStreams ?? 100 }, maxSessionMemory: 256 });
  const sessions = new Set<ServerHttp2Session>();
  fcm.on('session', (session) => {
    recorder.connections++;
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
    session.on('error', () => session.destroy());
  });
  fcm.on('stream', (stream, headers) => handleSendStream(state, stream, headers));
  fcm.on('sessionError', () => {});

  let tokenUri = '';
  const oauth = createHttpsServer(tls, function token(req, res) {
    const parts: Buffer[] = [];
    req.on('data', (b: Buffer) => parts.push(b));
    req.on('end', () => {
      const answer = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(body));
      };
      if (req.method !== 'POST' || new URL(req.url ?? '/', tokenUri).pathname !== '/token') return answer(404, { error: 'not_found' });
      // The audience is this endpoint as the client named it (Google's: https://oauth2.googleapis.com/token).
      const r = issuer.exchange(new URLSearchParams(Buffer.concat(parts).toString()), `https://${req.headers.host ?? ''}/token`);
      if (!r.ok) return answer(r.status, { error: r.error, error_description: r.description });
      answer(200, { access_token: r.accessToken, expires_in: r.expiresIn, token_type: 'Bearer' });
    });
  });

  const setRules = (rules: FcmSimRule[]) => {
    state.rules = validateRules(rules);
  };
  const control = createFcmControlServer({ recorder, issuer, getRules: () => state.rules, setRules, reset: () => recorder.reset() });

  const port = await listen(fcm, opts.port ?? 0, host);
  const tokenPort = await listen(oauth, opts.tokenPort ?? 0, host);
  const controlPort = await listen(control, opts.controlPort ?? 0, host);
  const url = `https://${urlHost(host)}:${port}`;
  tokenUri = `https://${urlHost(host)}:${tokenPort}/token`;
  const controlUrl = `http://${urlHost(host)}:${controlPort}`;
  logger.info({ url, tokenUri, controlUrl, caFile: pki.caFile, accounts: (opts.accounts ?? []).map((a) => a.clientEmail) }, 'fcm-sim listening');

  let closing: Promise<void> | undefined;
  return {
    url,
    tokenUri,
    controlUrl,
    caFile: pki.caFile,
    stats: () => recorder.stats(issuer.minted),
    deliveries: (token) => recorder.deliveries(token),
    attempts: (token) => recorder.attemptsFor(token),
    setRules,
    revokeAccessTokens: () => issuer.revokeAll(),
    reset: () => {
      recorder.reset();
      issuer.resetCounts();
    },
    close: () => {
      closing ??= (async () => {
        for (const s of sessions) s.destroy();
        oauth.closeAllConnections();
        control.closeAllConnections();
        await Promise.all([fcm, oauth, control].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
      })();
      return closing;
    },
  };
}
