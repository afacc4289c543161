// Shared start-up and shutdown of the long-running roles: config, logger, clients, and a
// graceful-then-forceful stop on SIGTERM/SIGINT (stop accepting, finish in-flight work, exit).
import { loadConfig, loadKeyring, redactedConfig, ConfigError, type Config } from '../core/config.js';
import { useKeyring } from '../core/secrets/seal.js';
import { createLogger, type Logger } from '../core/log.js';
import { isUnavailable } from '../core/faults/unavailable.js';
import { createDialer, parseNoProxy, parseProxyUrl, type Dialer } from '../core/net/index.js';

export interface Runtime {
  config: Readonly<Config>;
  logger: Logger;
  /** The one way out to Apple, Google and webhooks (HTTPS_PROXY, NO_PROXY; core/net/dialer.ts). */
  dialer: Dialer;
  /** Registers a step of the shutdown; steps run in reverse order of registration. */
  onShutdown(name: string, step: () => Promise<unknown>): void;
}

export function startRuntime(role: string): Runtime {
  let config: Readonly<Config>;
  try {
    config = loadConfig(process.env);
    useKeyring(loadKeyring(process.env));
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`herald ${role}: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const pretty = config.logFormat === 'pretty' || (config.logFormat === 'auto' && process.stdout.isTTY === true);
  const logger = createLogger({ level: config.logLevel, name: `herald-${role}`, pretty });
  logger.info({ config: redactedConfig(config) }, `herald ${role} starting`);
  const steps: { name: string; step: () => Promise<unknown> }[] = [];
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, config.shutdownGraceSeconds * 1000);
    force.unref();
    for (const { name, step } of [...steps].reverse()) {
      try {
        await step();
      } catch (error) {
        logger.warn({ err: error, step: name }, 'shutdown step failed');
      }
    }
    logger.info('stopped');
    process.exit(0);
  };
  // Last line of defence: every client's error path is handled where it is built, but
  // should a dependency error still escape (an 'error' event or a rejection nobody awaited), it
  // is logged and the process keeps running, since the client reconnects by itself. Anything
  // else is a bug: logged, and the process exits as Node would.
  const escaped = (kind: string) => (error: unknown) => {
    if (isUnavailable(error)) {
      logger.warn({ err: error, kind }, 'dependency error escaped its handler; continuing');
      return;
    }
    logger.fatal({ err: error, kind }, 'unexpected error; exiting');
    process.exit(1);
  };
  process.on('uncaughtException', escaped('uncaughtException'));
  process.on('unhandledRejection', escaped('unhandledRejection'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  return { config, logger, dialer: dialerFor(config, logger), onShutdown: (name, step) => steps.push({ name, step }) };
}

/** The process's dialer from the proxy settings (validated by loadConfig). */
export function dialerFor(config: Config, logger: Logger): Dialer {
  return createDialer({
    proxy: config.httpsProxy ? parseProxyUrl(config.httpsProxy) : undefined,
    noProxy: parseNoProxy(config.noProxy),
    logger,
  });
}

/** A one-line fatal message for a command-line user, no stack trace. */
export function fail(message: string, code = 1): never {
  process.stderr.write(`herald: ${message}\n`);
  process.exit(code);
}

/** A command line Herald cannot run as given: exit 2, as every command's usage errors do. */
export function usageError(message: string): never {
  return fail(message, 2);
}
