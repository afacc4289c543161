// "Log once per outage": the first failure of a dependency is one warning, the repeats are
// silent (debug), and the first success after it is one info line with how long it lasted.
import type { Logger } from '../log.js';

export interface OutageLog {
  /** A failure of the dependency; logged only when it starts an outage. */
  down(error: unknown): void;
  /** A success; ends the outage (and logs it) if there was one. */
  up(): void;
  readonly isDown: boolean;
}

export function outageLog(logger: Logger, dependency: string): OutageLog {
  let since: number | undefined;
  return {
    down(error) {
      if (since === undefined) {
        since = Date.now();
        logger.warn({ err: error, dependency }, `${dependency} unavailable; waiting for it to come back`);
      } else logger.debug({ err: error, dependency }, `${dependency} still unavailable`);
    },
    up() {
      if (since === undefined) return;
      logger.info({ dependency, outageMs: Date.now() - since }, `${dependency} is back`);
      since = undefined;
    },
    get isDown() {
      return since !== undefined;
    },
  };
}
