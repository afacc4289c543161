// pino, JSON, one root logger per process; child loggers carry request id / send id / chunk.
// Secrets never reach a log line: the redact paths cover every place one could hide.
import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';
import { maskUrlSecrets } from './secrets/mask.js';

export type { Logger };

export const REDACT_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  'key',
  'apiKey',
  'keyP8',
  'pfx',
  'passphrase',
  'password',
  '*.authorization',
  '*.apiKey',
  '*.keyP8',
  '*.passphrase',
];

export function createLogger(opts: { level?: string; name?: string; pretty?: boolean } = {}): Logger {
  // A person at a terminal reads lines (pino-pretty, in this process: no worker thread);
  // everything else gets JSON, one object a line.
  const destination = opts.pretty ? pretty({ translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true, sync: true }) : undefined;
  return pino({
    name: opts.name ?? 'herald',
    level: opts.level ?? 'info',
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: { pid: process.pid },
    // Last line of defence: a URL with a password, token or secret parameter is masked in the
    // finished line, wherever it came from (an error message, a driver's option dump…).
    hooks: { streamWrite: maskUrlSecrets },
  }, destination);
}

/** A logger that drops everything (unit tests, tools). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
