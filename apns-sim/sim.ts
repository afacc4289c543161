// startApnsSim: the APNs provider-API simulator as a library (tests, benchmarks, `herald dev`).
import { createSecureServer, type Http2SecureServer, type ServerHttp2Session } from 'node:http2';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { ensureServerCertificate } from './certs.js';
import { createControlServer } from './control.js';
import { handleStream, numberSession, sessionNumber, type SimAuthMode } from './gateway.js';
import { BROADCAST_PATH_PREFIX, handleBroadcastStream, subscribeDevice, type BroadcastState } from './broadcast.js';
import { ChannelStore } from './channels.js';
import { handleManagementStream } from './management.js';
import { ProviderTokenVerifier, type AcceptedKey } from './provider-token.js';
import { Recorder, type DeliveryRecord, type SimStats } from './recorder.js';
import { loadRulesFile, validateRules, type SimRule } from './rules.js';

export interface ApnsSimOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** HTTP/2 (TLS) port; 0 (default) picks a free one. */
  port?: number;
  /** Control (HTTP/1.1) port; 0 (default) picks a free one. */
  controlPort?: number;
  /** Channel management (HTTP/2, TLS) port, Apple's api-manage-broadcast host; 0 (default) picks a free one. */
  managementPort?: number;
  /** Channels per bundle id (Apple: 10,000); lower it to test the limit. */
  maxChannels?: number;
  /** Where the CA and server certificate are written (reused if present). Default: a new temp dir. */
  certDir?: string;
  /**
   * 'token' (default): bearer JWT required. 'certificate': TLS client certificate signed by
   * `clientCaFile` required. 'token-or-certificate': a JWT when an authorization header is sent,
   * otherwise the certificate. 'none': no check (for h2load ceilings).
   */
  auth?: SimAuthMode;
  /** Keys whose signatures are accepted. None: any well-formed, fresh ES256 JWT passes. */
  keys?: AcceptedKey[];
  /** CA (PEM file) for client certificates. Default: the simulator's own CA in certDir. */
  clientCaFile?: string;
  /** When given, other apns-topic values are 400 TopicDisallowed. */
  topics?: string[];
  rules?: SimRule[];
  /** JSON file: an array of rules or {"rules": [...]}; appended after `rules`. */
  rulesFile?: string;
  /** Received requests kept for GET /deliveries (newest win). Default 10,000; 0 keeps none. */
  maxDeliveries?: number;
  /** Count attempts per token for every token (default true). Off: only tokens under a `times` rule. */
  trackTokens?: boolean;
  /** Keep only these push types' requests for GET /deliveries (default: every push type). */
  keepPushTypes?: string[];
  /** SETTINGS_MAX_CONCURRENT_STREAMS advertised per connection. Default 1000, like APNs. */
  maxConcurrentStreams?: number;
  logger?: Logger;
}

export interface ApnsSim {
  /** https://127.0.0.1:<port> */
  url: string;
  host: string;
  port: number;
  /** http://127.0.0.1:<controlPort> */
  controlUrl: string;
  /** https://127.0.0.1:<managementPort>: Apple's channel management host (HERALD_APNS_BROADCAST_URL). */
  managementUrl: string;
  /** PEM file of the throw-away CA that signed the server certificate: trust it in clients. */
  caFile: string;
  certDir: string;
  stats(): SimStats;
  /** Distinct valid provider tokens a team presented since start (Apple's TooManyProviderTokenUpdates counts these). */
  providerTokens(teamId: string): number;
  deliveries(token?: string, channelId?: string): DeliveryRecord[];
  /** A device's Live Activity joins a broadcast channel (ActivityKit's part); false for an unknown channel. */
  subscribe(channelId: string, token: string): boolean;
  /** A bundle id's channel ids, as Apple lists them. */
  channels(bundleId: string): string[];
  attempts(token: string): number;
  rules(): SimRule[];
  setRules(rules: SimRule[]): void;
  /** Clears counters, attempts and deliveries; keeps the rules. */
  reset(): void;
  close(): Promise<void>;
}

function listen(server: Http2SecureServer | Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

export async function startApnsSim(opts: ApnsSimOptions = {}): Promise<ApnsSim> {
  const host = opts.host ?? '127.0.0.1';
  const logger = opts.logger ?? pino({ level: 'silent' });
  const auth = opts.auth ?? 'token';
  const certDir = opts.certDir ?? (await mkdtemp(join(tmpdir(), 'herald-apns-sim-')));
  const pki = await ensureServerCertificate(certDir);
  let rules = validateRules([...(opts.rules ?? []), ...(opts.rulesFile ? await loadRulesFile(opts.rulesFile) : [])]);
  const recorder = new Recorder(opts.maxDeliveries ?? 10_000, opts.trackTokens ?? true, opts.keepPushTypes && new Set(opts.keepPushTypes));
  const state: BroadcastState = {
    auth,
    verifier: new ProviderTokenVerifier(opts.keys),
    recorder,
    rules,
    topics: opts.topics ? new Set(opts.topics) : undefined,
    logger,
    channels: new ChannelStore(opts.maxChannels),
  };

  const tlsOptions = await serverTlsOptions(opts, pki, auth);
  const server = createSecureServer(tlsOptions);
  // Apple's channel management host is another host (and port) than the gateway: so is ours.
  const management = createSecureServer(tlsOptions);
  const sessions = routeStreams(state, server, management);
  const setRules = (r: SimRule[]) => {
    rules = validateRules(r);
    state.rules = rules;
  };

  const control = createControlServer({
    recorder,
    getRules: () => rules,
    setRules,
    reset: () => recorder.reset(),
    subscribe: (channelId, token) => subscribeDevice(state, channelId, token),
  });

  const port = await listen(server, opts.port ?? 0, host);
  const controlPort = await listen(control, opts.controlPort ?? 0, host);
  const managementPort = await listen(management, opts.managementPort ?? 0, host);
  const url = `https://${urlHost(host)}:${port}`;
  const controlUrl = `http://${urlHost(host)}:${controlPort}`;
  const managementUrl = `https://${urlHost(host)}:${managementPort}`;
  logger.info({ url, controlUrl, managementUrl, caFile: pki.caFile, auth, signatureCheck: state.verifier.checksSignatures }, 'apns-sim listening');

  let closing: Promise<void> | undefined;
  return {
    url,
    host,
    port,
    controlUrl,
    managementUrl,
    caFile: pki.caFile,
    certDir,
    stats: () => recorder.stats(),
    providerTokens: (teamId) => state.verifier.presented(teamId),
    deliveries: (token, channelId) => recorder.deliveries(token, channelId),
    subscribe: (channelId, token) => subscribeDevice(state, channelId, token),
    channels: (bundleId) => state.channels.list(bundleId),
    attempts: (token) => recorder.attemptsFor(token),
    rules: () => rules,
    setRules,
    reset: () => recorder.reset(),
    close: () => {
      closing ??= closeServers(sessions, control, [server, management, control]);
      return closing;
    },
  };
}

/** The gateway's and channel management's TLS: the simulator's certificate, a client's asked for when it may authenticate with one. */
async function serverTlsOptions(opts: ApnsSimOptions, pki: { keyFile: string; certFile: string; caFile: string }, auth: string) {
  const wantsCert = auth === 'certificate' || auth === 'token-or-certificate';
  return {
    key: await readFile(pki.keyFile),
    cert: await readFile(pki.certFile),
    allowHTTP1: false,
    // A bad certificate must still reach the handler so it can answer 403 BadCertificate.
    requestCert: wantsCert,
    rejectUnauthorized: false,
    ca: wantsCert ? await readFile(opts.clientCaFile ?? pki.caFile) : undefined,
    settings: { maxConcurrentStreams: opts.maxConcurrentStreams ?? 1000 },
    // Node's default (10 MB) answers ENHANCE_YOUR_CALM under a few thousand concurrent streams.
    maxSessionMemory: 256,
  };
}

/** Each server's streams to their handlers; the sessions of both, kept so that close() can end them. */
function routeStreams(state: BroadcastState, server: Http2SecureServer, management: Http2SecureServer): Set<ServerHttp2Session> {
  const sessions = new Set<ServerHttp2Session>();
  const track = (session: ServerHttp2Session): void => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
    session.on('error', () => session.destroy());
  };
  server.on('session', (session) => {
    numberSession(session, state.recorder);
    track(session);
  });
  server.on('stream', (stream, headers) => {
    if (String(headers[':path'] ?? '').startsWith(BROADCAST_PATH_PREFIX)) handleBroadcastStream(state, stream, headers, sessionNumber(stream.session));
    else handleStream(state, stream, headers);
  });
  server.on('sessionError', () => {});
  management.on('session', track);
  management.on('stream', (stream, headers) => handleManagementStream(state, stream, headers));
  management.on('sessionError', () => {});
  return sessions;
}

/** Every session ended, then every server closed. */
async function closeServers(sessions: Set<ServerHttp2Session>, control: Server, servers: Array<Http2SecureServer | Server>): Promise<void> {
  for (const s of sessions) s.destroy();
  control.closeAllConnections();
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
}
