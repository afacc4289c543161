// One typed, frozen configuration built from HERALD_* variables (STYLE.md "Config").
// Only cli/ calls loadConfig with process.env; everything else receives the object.

import { maskUrlSecrets } from './secrets/mask.js';
import { parseKey, SealError, type Keyring } from './secrets/seal.js';
import { parseNoProxy, parseProxyUrl, proxyUrlForLog, ProxySettingError } from './formats/proxy-settings.js';

export type MirrorMode = 'all' | 'broadcasts' | 'none';

export interface Config {
  databaseUrl: string;
  /**
   * PostgreSQL itself, for the work that needs a session of its own (the scheduler's leadership
   * lock, `herald migrate`). Set when databaseUrl is a pooler in transaction mode (PgBouncer):
   * the pools then prepare no named statement and send no session setting (docs/install.md
   * "PgBouncer"). Unset: databaseUrl serves both.
   */
  databaseSessionUrl?: string;
  /** Connections each role's pool may hold to databaseUrl (docs/install.md "Database connections"). */
  apiDatabaseConnections: number;
  /** Unset: the sender's own default for its slots (sender/sender.ts senderPoolSize). */
  senderDatabaseConnections?: number;
  controllerDatabaseConnections: number;
  /** HTTPS_PROXY (or https_proxy): the egress proxy of every connection to Apple, Google and webhooks (core/net/). Logged masked. */
  httpsProxy?: string;
  /** NO_PROXY (or no_proxy): the hosts that go direct. */
  noProxy?: string;
  redisUrl: string;
  natsUrl: string;
  httpHost: string;
  httpPort: number;
  /** Prometheus /metrics port of a sender or controller (the api serves it on httpPort). */
  metricsPort: number;
  /** Prefix of JetStream stream and subject names, so several installs or tests share one server. */
  streamPrefix: string;
  /** Prefix of every Redis key. */
  redisPrefix: string;
  /** Number of proxy hops whose X-Forwarded-For is trusted (0: use the socket address). */
  trustProxyHops: number;
  apnsUrl?: string;
  /** The sandbox gateway's override (a second simulator); HERALD_APNS_URL when unset. */
  apnsSandboxUrl?: string;
  apnsCaFile?: string;
  /** Apple's channel management host for broadcast push (issue 29): overrides Apple's for the App's environment. */
  apnsBroadcastUrl?: string;
  /** HERALD_FCM_URL: overrides https://fcm.googleapis.com (fcm-sim; issue 39). */
  fcmUrl?: string;
  /** HERALD_FCM_CA_FILE: a CA trusted for FCM and for the service accounts' token endpoint. */
  fcmCaFile?: string;
  /** HERALD_FCM_CONNECTIONS: HTTP/2 connections per App to FCM (about 100 streams each). */
  fcmConnections: number;
  /** YAML file of App manifests, when no cluster is used. */
  appsFile?: string;
  /** Hosts an event destination may reach over plain http (HERALD_EVENT_HTTP_HOSTS); every other is https only. */
  eventHttpHosts: readonly string[];
  logLevel: string;
  /** auto: readable lines on a terminal, JSON otherwise (pods, files, pipes). */
  logFormat: 'auto' | 'json' | 'pretty';
  /** Which REST sends the controller mirrors as Send objects. */
  mirrorSends: MirrorMode;
  /** Seconds a process waits for in-flight work on SIGTERM before it exits anyway. */
  shutdownGraceSeconds: number;
  /** How many chunk jobs one sender works at once. */
  senderConcurrency: number;
  senderLiveActivitySlots: number;
  /** The lease a sender holds on a chunk it works (ms): renewed every third of it; a chunk whose sender died is claimable again after it. */
  senderLeaseMs: number;
  /** Starts of a chunk never recorded; the last one records its devices failed instead of sending (a poison chunk). */
  senderMaxChunkStarts: number;
  /** Attempts per device for 429 / 5xx / connection loss before it counts as failed. */
  senderMaxAttempts: number;
  /** How long a chunk waits out the APNs gateway deciding none of its devices (sender/retry-rounds.ts). */
  senderGatewayHoldMs: number;
  /** First back-off between those attempts (ms); doubles each time, capped at 5 s. */
  senderRetryBaseMs: number;
  /** The most HTTP/2 connections per app a sender opens to APNs (as the streams in flight need them), and streams in flight per connection. */
  apnsConnections: number;
  apnsMaxStreams: number;
  /** HERALD_APNS_CLIENT: the APNs adapter (lean by default, node-apn the conservative one). */
  apnsClient: 'lean' | 'node-apn';
  /** Kubernetes namespace the controller watches ('' = all). */
  namespace: string;
  /** Rate buckets of the api: `on` (Redis, with the per-process fallback) or `off` (benchmarks' baseline only). */
  rateLimits: 'on' | 'off';
  /** Controller: kubeconfig file, an override of the kube conventions below (controller/kube/config.ts). */
  kubeconfig?: string;
  /** Controller: KUBECONFIG, kubectl's list of files; then the pod's ServiceAccount; then ~/.kube/config. */
  kubeconfigList?: string;
  /** Controller: KUBERNETES_SERVICE_HOST, set in every pod (with the ServiceAccount token: in-cluster). */
  kubernetesServiceHost?: string;
  /** Controller: Send objects older than this are deleted (0 = kept). */
  sendRetentionSeconds: number;
  /** Days a finished send is kept in PostgreSQL (0: forever); core/send/retention.ts. */
  finishedSendRetentionDays: number;
  /** Days a finished send keeps its chunk rows (0: forever). */
  chunkRetentionDays: number;
  /** Controller: leader-election Lease (namespace, name, duration); the namespace defaults to the pod's. */
  leaseNamespace: string;
  leaseName: string;
  leaseDurationSeconds: number;
  /** Controller: every cached App and Send is reconciled again at this period. */
  controllerResyncSeconds: number;
  /** Controller: Send status writes per second to the API server, across all Sends. */
  kubeStatusWritesPerSecond: number;
  /** Controller: this replica's identity in the Lease (the chart passes the pod name). */
  podName?: string;
}

type Env = Record<string, string | undefined>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function text(env: Env, name: string, fallback: string): string {
  const value = env[name];
  return value === undefined || value === '' ? fallback : value;
}

function optional(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

function oneOf<T extends string>(env: Env, name: string, fallback: T, allowed: readonly T[]): T {
  const raw = text(env, name, fallback);
  if (!allowed.includes(raw as T)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

/** A URL setting (a comma-separated list when `list`), each with one of the allowed schemes. */
function url(env: Env, name: string, fallback: string, schemes: readonly string[], list = false): string {
  const raw = text(env, name, fallback);
  for (const part of list ? raw.split(',') : [raw]) {
    let scheme: string | undefined;
    try {
      scheme = new URL(part.trim()).protocol.slice(0, -1);
    } catch {
      scheme = undefined;
    }
    if (!scheme || !schemes.includes(scheme)) {
      throw new ConfigError(`${name} must be a ${schemes.map((s) => `${s}://`).join(' or ')} URL, got "${part.trim().replace(/\/\/[^@/]*@/, '//***@')}"`);
    }
  }
  return raw;
}

/** The proxy variables as curl and Go read them: the upper-case name first, then the lower-case one. */
function proxyVariable(env: Env, name: string): { name: string; value: string } | undefined {
  for (const n of [name, name.toLowerCase()]) {
    const value = optional(env, n);
    if (value !== undefined) return { name: n, value };
  }
  return undefined;
}

function proxySettings(env: Env): Pick<Config, 'httpsProxy' | 'noProxy'> {
  const proxy = proxyVariable(env, 'HTTPS_PROXY');
  const noProxy = proxyVariable(env, 'NO_PROXY');
  try {
    if (proxy) parseProxyUrl(proxy.value, proxy.name);
    if (noProxy) parseNoProxy(noProxy.value, noProxy.name);
  } catch (error) {
    if (error instanceof ProxySettingError) throw new ConfigError(error.message);
    throw error;
  }
  return { httpsProxy: proxy?.value, noProxy: noProxy?.value };
}

export function loadConfig(env: Env): Readonly<Config> {
  return Object.freeze({
    databaseUrl: url(env, 'HERALD_DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/herald', ['postgres', 'postgresql']),
    databaseSessionUrl: optional(env, 'HERALD_DATABASE_SESSION_URL') === undefined ? undefined : url(env, 'HERALD_DATABASE_SESSION_URL', '', ['postgres', 'postgresql']),
    apiDatabaseConnections: integer(env, 'HERALD_API_DATABASE_CONNECTIONS', 20, 2, 1000),
    senderDatabaseConnections: optional(env, 'HERALD_SENDER_DATABASE_CONNECTIONS') === undefined ? undefined : integer(env, 'HERALD_SENDER_DATABASE_CONNECTIONS', 0, 2, 1000),
    controllerDatabaseConnections: integer(env, 'HERALD_CONTROLLER_DATABASE_CONNECTIONS', 8, 2, 1000),
    ...proxySettings(env),
    redisUrl: url(env, 'HERALD_REDIS_URL', 'redis://127.0.0.1:6379', ['redis', 'rediss']),
    natsUrl: url(env, 'HERALD_NATS_URL', 'nats://127.0.0.1:4222', ['nats', 'tls', 'ws', 'wss'], true),
    httpHost: text(env, 'HERALD_HTTP_HOST', '0.0.0.0'),
    httpPort: integer(env, 'HERALD_HTTP_PORT', 8080, 0, 65535),
    metricsPort: integer(env, 'HERALD_METRICS_PORT', 9090, 0, 65535),
    streamPrefix: text(env, 'HERALD_STREAM_PREFIX', 'HERALD'),
    redisPrefix: text(env, 'HERALD_REDIS_PREFIX', 'herald:'),
    trustProxyHops: integer(env, 'HERALD_TRUST_PROXY_HOPS', 0, 0, 10),
    apnsUrl: optional(env, 'HERALD_APNS_URL'),
    apnsSandboxUrl: optional(env, 'HERALD_APNS_SANDBOX_URL'),
    apnsCaFile: optional(env, 'HERALD_APNS_CA_FILE'),
    apnsBroadcastUrl: optional(env, 'HERALD_APNS_BROADCAST_URL'),
    fcmUrl: optional(env, 'HERALD_FCM_URL'),
    fcmCaFile: optional(env, 'HERALD_FCM_CA_FILE'),
    fcmConnections: integer(env, 'HERALD_FCM_CONNECTIONS', 4, 1, 64),
    appsFile: optional(env, 'HERALD_APPS_FILE'),
    // Host names or addresses, compared lower case with a URL's host (core/events/destination-url.ts).
    eventHttpHosts: Object.freeze((optional(env, 'HERALD_EVENT_HTTP_HOSTS') ?? '').split(',').map((h) => h.trim().toLowerCase()).filter((h) => h !== '')),
    logLevel: oneOf(env, 'HERALD_LOG_LEVEL', 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    logFormat: oneOf(env, 'HERALD_LOG_FORMAT', 'auto', ['auto', 'json', 'pretty'] as const),
    mirrorSends: oneOf<MirrorMode>(env, 'HERALD_MIRROR_SENDS', 'broadcasts', ['all', 'broadcasts', 'none']),
    shutdownGraceSeconds: integer(env, 'HERALD_SHUTDOWN_GRACE_SECONDS', 25, 0, 3600),
    senderConcurrency: integer(env, 'HERALD_SENDER_CONCURRENCY', 4, 1, 256),
    senderLiveActivitySlots: integer(env, 'HERALD_SENDER_LIVE_ACTIVITY_SLOTS', 2, 0, 64),
    // Each under its new name, else its JetStream-era name (kept so existing installs and the chart keep working).
    senderLeaseMs: integer(env, 'HERALD_SENDER_LEASE_MS', integer(env, 'HERALD_SENDER_ACK_WAIT_MS', 30_000, 1000, 3_600_000), 1000, 3_600_000),
    senderMaxChunkStarts: integer(env, 'HERALD_SENDER_MAX_CHUNK_STARTS', integer(env, 'HERALD_SENDER_MAX_DELIVER', 6, 2, 100), 2, 100),
    senderMaxAttempts: integer(env, 'HERALD_SENDER_MAX_ATTEMPTS', 4, 1, 20),
    senderGatewayHoldMs: integer(env, 'HERALD_SENDER_GATEWAY_HOLD_MS', 300_000, 1000, 3_600_000),
    senderRetryBaseMs: integer(env, 'HERALD_SENDER_RETRY_BASE_MS', 250, 1, 60_000),
    apnsConnections: integer(env, 'HERALD_APNS_CONNECTIONS', 16, 1, 64),
    apnsMaxStreams: integer(env, 'HERALD_APNS_MAX_STREAMS', 500, 1, 10_000),
    apnsClient: oneOf<'lean' | 'node-apn'>(env, 'HERALD_APNS_CLIENT', 'lean', ['lean', 'node-apn']),
    namespace: text(env, 'HERALD_NAMESPACE', ''),
    rateLimits: oneOf<'on' | 'off'>(env, 'HERALD_RATE_LIMITS', 'on', ['on', 'off']),
    kubeconfig: optional(env, 'HERALD_KUBECONFIG'),
    kubeconfigList: optional(env, 'KUBECONFIG'),
    kubernetesServiceHost: optional(env, 'KUBERNETES_SERVICE_HOST'),
    sendRetentionSeconds: integer(env, 'HERALD_SEND_RETENTION_SECONDS', 86_400, 0, 365 * 86_400),
    finishedSendRetentionDays: integer(env, 'HERALD_FINISHED_SEND_RETENTION_DAYS', 90, 0, 3650),
    chunkRetentionDays: integer(env, 'HERALD_CHUNK_RETENTION_DAYS', 30, 0, 3650),
    leaseNamespace: text(env, 'HERALD_LEASE_NAMESPACE', text(env, 'HERALD_POD_NAMESPACE', 'default')),
    leaseName: text(env, 'HERALD_LEASE_NAME', 'herald-controller'),
    leaseDurationSeconds: integer(env, 'HERALD_LEASE_DURATION_SECONDS', 15, 2, 300),
    controllerResyncSeconds: integer(env, 'HERALD_CONTROLLER_RESYNC_SECONDS', 300, 1, 86_400),
    kubeStatusWritesPerSecond: integer(env, 'HERALD_KUBE_STATUS_WRITES_PER_SECOND', 20, 1, 1000),
    podName: optional(env, 'HERALD_POD_NAME'),
  });
}

/** The configuration as it may be logged: every secret form in a URL is masked (core/secrets/mask.ts). */
export function redactedConfig(config: Config): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(config).map(([name, value]) => [
      name,
      // The proxy's user may be written without a scheme (`user:pass@proxy:3128`), which no URL rule sees.
      name === 'httpsProxy' && typeof value === 'string' ? proxyUrlForLog(value) : typeof value === 'string' ? maskUrlSecrets(value) : value,
    ]),
  );
}

/**
 * The keys that seal secrets at rest (core/secrets/seal.ts): HERALD_ENCRYPTION_KEY seals, and
 * HERALD_ENCRYPTION_KEYS_PREVIOUS (comma-separated) still open rows of earlier keys. Kept out of
 * Config so the keys can never be logged with it.
 */
export function loadKeyring(env: Env): Keyring {
  try {
    const current = optional(env, 'HERALD_ENCRYPTION_KEY');
    const previous = (optional(env, 'HERALD_ENCRYPTION_KEYS_PREVIOUS') ?? '').split(',').filter((k) => k.trim() !== '');
    return {
      current: current === undefined ? undefined : parseKey(current, 'HERALD_ENCRYPTION_KEY'),
      previous: previous.map((k) => parseKey(k, 'HERALD_ENCRYPTION_KEYS_PREVIOUS')),
    };
  } catch (error) {
    if (error instanceof SealError) throw new ConfigError(error.message);
    throw error;
  }
}
