// `herald apns-sim`: settings from flags or HERALD_APNS_SIM_* variables (flags win), start, print
// where it listens, stop on SIGINT/SIGTERM. The CLI passes argv and env in; nothing here reads
// process.env on its own.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { pino, type Logger } from 'pino';
import { publicKeyPemOf } from './keys.js';
import type { AcceptedKey } from './provider-token.js';
import { startApnsSim, type ApnsSim, type ApnsSimOptions } from './sim.js';
import type { SimAuthMode } from './gateway.js';

export const APNS_SIM_USAGE = `herald apns-sim [flags]      (each flag also as HERALD_APNS_SIM_<NAME>)
  --host H               listen address (127.0.0.1)                       HOST
  --port N               HTTP/2 TLS port (2197; 0 = any free)              PORT
  --control-port N       HTTP/1.1 control port (2198; 0 = any free)        CONTROL_PORT
  --management-port N    channel management HTTP/2 TLS port (2199; 0 = any) MANAGEMENT_PORT
  --cert-dir DIR         CA + server certificate, reused (./.herald/apns-sim) CERT_DIR
  --auth MODE            token | certificate | token-or-certificate | none   AUTH
  --key KID:TEAM:FILE    accept JWTs signed by this key (.p8 or public PEM);
                         repeatable; TEAM may be empty                      KEYS (comma-separated)
  --key-file/--key-id/--team-id  one key, the simple way                    KEY_FILE, KEY_ID, TEAM_ID
  --client-ca FILE       CA for client certificates (default: own CA)      CLIENT_CA_FILE
  --topics A,B           allowed apns-topic values (default: any)          TOPICS
  --rules FILE           JSON rules file                                   RULES_FILE
  --max-deliveries N     payloads kept for GET /deliveries (10000; 0 none)   MAX_DELIVERIES
  --track-tokens BOOL    per-token attempt counts (true)                   TRACK_TOKENS
  --keep-push-types A,B  keep only these push types' payloads (default: all) KEEP_PUSH_TYPES
With no key configured, any well-formed ES256 JWT younger than an hour is accepted.`;

function intOf(name: string, v: string | undefined): number | undefined {
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${v}"`);
  return n;
}

function boolOf(name: string, v: string | undefined): boolean | undefined {
  if (v === undefined || v === '') return undefined;
  if (/^(true|1|yes)$/i.test(v)) return true;
  if (/^(false|0|no)$/i.test(v)) return false;
  throw new Error(`${name} must be true or false, got "${v}"`);
}

function keyOf(name: string, spec: string): AcceptedKey {
  const m = /^([^:]+):([^:]*):(.+)$/.exec(spec);
  if (!m) throw new Error(`${name} must look like KEYID:TEAMID:/path/to/key.p8, got "${spec}"`);
  return { keyId: m[1], teamId: m[2] || undefined, publicKey: publicKeyPemOf(readFileSync(m[3], 'utf8')) };
}

const AUTH_MODES: SimAuthMode[] = ['token', 'certificate', 'token-or-certificate', 'none'];

/** Flags win over env. Throws naming the flag / variable at fault. */
export function parseApnsSimConfig(argv: string[], env: Record<string, string | undefined>): ApnsSimOptions {
  const { values } = parseArgs({
    args: argv,
    allowPositionals: false,
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      'control-port': { type: 'string' },
      'management-port': { type: 'string' },
      'cert-dir': { type: 'string' },
      auth: { type: 'string' },
      key: { type: 'string', multiple: true },
      'key-file': { type: 'string' },
      'key-id': { type: 'string' },
      'team-id': { type: 'string' },
      'client-ca': { type: 'string' },
      topics: { type: 'string' },
      rules: { type: 'string' },
      'max-deliveries': { type: 'string' },
      'track-tokens': { type: 'string' },
      'keep-push-types': { type: 'string' },
    },
  });
  const pick = (flag: keyof typeof values, variable: string): [string, string | undefined] => {
    const v = values[flag];
    if (typeof v === 'string') return [`--${flag}`, v];
    return [`HERALD_APNS_SIM_${variable}`, env[`HERALD_APNS_SIM_${variable}`]];
  };
  const [authName, authValue] = pick('auth', 'AUTH');
  if (authValue !== undefined && authValue !== '' && !AUTH_MODES.includes(authValue as SimAuthMode)) {
    throw new Error(`${authName} must be one of ${AUTH_MODES.join(', ')}, got "${authValue}"`);
  }
  const keys: AcceptedKey[] = [];
  const keySpecs = values.key ?? (env.HERALD_APNS_SIM_KEYS ? env.HERALD_APNS_SIM_KEYS.split(',').filter(Boolean) : []);
  for (const spec of keySpecs) keys.push(keyOf(values.key ? '--key' : 'HERALD_APNS_SIM_KEYS', spec.trim()));
  const [keyFileName, keyFile] = pick('key-file', 'KEY_FILE');
  if (keyFile) {
    const [keyIdName, keyId] = pick('key-id', 'KEY_ID');
    if (!keyId) throw new Error(`${keyIdName} is required with ${keyFileName}`);
    const [, teamId] = pick('team-id', 'TEAM_ID');
    keys.push({ keyId, teamId: teamId || undefined, publicKey: publicKeyPemOf(readFileSync(keyFile, 'utf8')) });
  }
  const topics = pick('topics', 'TOPICS')[1];
  const keepPushTypes = pick('keep-push-types', 'KEEP_PUSH_TYPES')[1];
  const opt = (flag: keyof typeof values, variable: string): string | undefined => pick(flag, variable)[1] || undefined;
  return {
    host: opt('host', 'HOST') ?? '127.0.0.1',
    port: intOf(...pick('port', 'PORT')) ?? 2197,
    controlPort: intOf(...pick('control-port', 'CONTROL_PORT')) ?? 2198,
    managementPort: intOf(...pick('management-port', 'MANAGEMENT_PORT')) ?? 2199,
    certDir: opt('cert-dir', 'CERT_DIR') ?? '.herald/apns-sim',
    auth: (authValue || 'token') as SimAuthMode,
    keys,
    clientCaFile: opt('client-ca', 'CLIENT_CA_FILE'),
    topics: topics ? topics.split(',').map((t) => t.trim()).filter(Boolean) : undefined,
    rulesFile: opt('rules', 'RULES_FILE'),
    maxDeliveries: intOf(...pick('max-deliveries', 'MAX_DELIVERIES')),
    trackTokens: boolOf(...pick('track-tokens', 'TRACK_TOKENS')),
    keepPushTypes: keepPushTypes ? keepPushTypes.split(',').map((t) => t.trim()).filter(Boolean) : undefined,
  };
}

export interface ApnsSimCommandOptions {
  argv?: string[];
  env?: Record<string, string | undefined>;
  logger?: Logger;
  /** Close on SIGINT/SIGTERM (default true). */
  handleSignals?: boolean;
}

/** Starts the simulator for `herald apns-sim`; resolves once it listens. */
export async function runApnsSimCommand(options: ApnsSimCommandOptions = {}): Promise<ApnsSim> {
  const argv = options.argv ?? [];
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${APNS_SIM_USAGE}\n`);
    process.exit(0);
  }
  const logger = options.logger ?? pino({ name: 'apns-sim' });
  const config = parseApnsSimConfig(argv, options.env ?? {});
  const sim = await startApnsSim({ ...config, logger });
  logger.info(
    { url: sim.url, controlUrl: sim.controlUrl, caFile: sim.caFile, keys: config.keys?.map((k) => k.keyId) ?? [] },
    `apns-sim ready: trust ${sim.caFile}`,
  );
  if (options.handleSignals ?? true) {
    const stop = (signal: string): void => {
      logger.info({ signal }, 'apns-sim stopping');
      void sim.close().then(() => process.exit(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  }
  return sim;
}
