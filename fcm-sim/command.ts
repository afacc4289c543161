// `herald fcm-sim`: settings from flags or HERALD_FCM_SIM_* variables (flags win), start, print
// where it listens, stop on SIGINT/SIGTERM. The CLI passes argv and env in; nothing here reads
// process.env on its own.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { pino, type Logger } from 'pino';
import type { SimAccount } from './oauth.js';
import { startFcmSim, type FcmSim, type FcmSimOptions } from './sim.js';

export const FCM_SIM_USAGE = `herald fcm-sim [flags]       (each flag also as HERALD_FCM_SIM_<NAME>)
  --host H                  listen address (127.0.0.1)                          HOST
  --port N                  messages:send HTTP/2 TLS port (2201; 0 = any free)   PORT
  --token-port N            token endpoint HTTPS port (2202; 0 = any free)       TOKEN_PORT
  --control-port N          HTTP/1.1 control port (2203; 0 = any free)           CONTROL_PORT
  --cert-dir DIR            CA + server certificate, reused (./.herald/fcm-sim)  CERT_DIR
  --service-account FILE    accept assertions of this service account (its JSON:
                            client_email, project_id, private_key); repeatable   SERVICE_ACCOUNTS (comma-separated)
  --token-lifetime N        expires_in of the access tokens, seconds (3600)      TOKEN_LIFETIME
  --rules FILE              JSON rules file                                      RULES_FILE
  --max-deliveries N        messages kept for GET /deliveries (10000; 0 none)    MAX_DELIVERIES
  --max-streams N           concurrent streams per connection (100)              MAX_STREAMS
With no service account, any well-formed RS256 assertion with FCM's claims gets a token for every
project. Point a service account's token_uri at https://HOST:TOKEN_PORT/token.`;

function intOf(name: string, v: string | undefined): number | undefined {
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${v}"`);
  return n;
}

/** A service-account JSON file as the sim's account (the public half of its private key). */
export function accountOf(name: string, file: string): SimAccount {
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new Error(`${name}: ${file} is not a readable JSON file (${(error as Error).message})`);
  }
  const { client_email: clientEmail, project_id: projectId, private_key: privateKey } = json;
  if (typeof clientEmail !== 'string' || typeof projectId !== 'string' || typeof privateKey !== 'string') throw new Error(`${name}: ${file} must hold client_email, project_id and private_key`);
  return { clientEmail, projectId, publicKey: privateKey };
}

/** Flags win over env. Throws naming the flag / variable at fault. */
export function parseFcmSimConfig(argv: string[], env: Record<string, string | undefined>): FcmSimOptions {
  const { values } = parseArgs({
    args: argv,
    allowPositionals: false,
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      'token-port': { type: 'string' },
      'control-port': { type: 'string' },
      'cert-dir': { type: 'string' },
      'service-account': { type: 'string', multiple: true },
      'token-lifetime': { type: 'string' },
      rules: { type: 'string' },
      'max-deliveries': { type: 'string' },
      'max-streams': { type: 'string' },
    },
  });
  const pick = (flag: Exclude<keyof typeof values, 'service-account'>, variable: string): [string, string | undefined] => {
    const v = values[flag];
    if (typeof v === 'string') return [`--${flag}`, v];
    return [`HERALD_FCM_SIM_${variable}`, env[`HERALD_FCM_SIM_${variable}`] || undefined];
  };
  const files = values['service-account'] ?? (env.HERALD_FCM_SIM_SERVICE_ACCOUNTS ?? '').split(',').filter(Boolean);
  const accountsName = values['service-account'] ? '--service-account' : 'HERALD_FCM_SIM_SERVICE_ACCOUNTS';
  const lifetime = intOf(...pick('token-lifetime', 'TOKEN_LIFETIME'));
  if (lifetime === 0) throw new Error('--token-lifetime must be at least 1 second');
  return {
    host: pick('host', 'HOST')[1] ?? '127.0.0.1',
    port: intOf(...pick('port', 'PORT')) ?? 2201,
    tokenPort: intOf(...pick('token-port', 'TOKEN_PORT')) ?? 2202,
    controlPort: intOf(...pick('control-port', 'CONTROL_PORT')) ?? 2203,
    certDir: pick('cert-dir', 'CERT_DIR')[1] ?? '.herald/fcm-sim',
    accounts: files.map((f) => accountOf(accountsName, f.trim())),
    tokenLifetimeS: lifetime,
    rulesFile: pick('rules', 'RULES_FILE')[1],
    maxDeliveries: intOf(...pick('max-deliveries', 'MAX_DELIVERIES')),
    maxConcurrentStreams: intOf(...pick('max-streams', 'MAX_STREAMS')),
  };
}

export interface FcmSimCommandOptions {
  argv?: string[];
  env?: Record<string, string | undefined>;
  logger?: Logger;
  handleSignals?: boolean;
}

/** Starts the simulator for `herald fcm-sim`; resolves once it listens. */
export async function runFcmSimCommand(options: FcmSimCommandOptions = {}): Promise<FcmSim> {
  const argv = options.argv ?? [];
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${FCM_SIM_USAGE}\n`);
    process.exit(0);
  }
  const logger = options.logger ?? pino({ name: 'fcm-sim' });
  const config = parseFcmSimConfig(argv, options.env ?? {});
  const sim = await startFcmSim({ ...config, logger });
  logger.info({ url: sim.url, tokenUri: sim.tokenUri, controlUrl: sim.controlUrl, caFile: sim.caFile }, `fcm-sim ready: trust ${sim.caFile}`);
  if (options.handleSignals ?? true) {
    const stop = (signal: string): void => {
      logger.info({ signal }, 'fcm-sim stopping');
      void sim.close().then(() => process.exit(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  }
  return sim;
}
