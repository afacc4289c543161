// What the egress proxy is doing, said once: unreachable (or refusing our credentials, 407: then
// nothing gets through either) is an outage of the proxy, logged when it starts and when it ends;
// a tunnel it refuses to one target (403 by its policy, 502 when it cannot reach the target) is
// that target's, logged once per target until a tunnel to it opens again. The gauges read the
// snapshot (egress-metrics.ts). Never the proxy's credentials: the proxy is named by host:port.
import { silentLogger, type Logger } from '../log.js';
import { outageLog, type OutageLog } from '../faults/outage-log.js';
import { authorityOf, TunnelError } from './tunnel.js';

export interface EgressSnapshot {
  /** host:port of the proxy. */
  proxy: string;
  /** False from a tunnel the proxy did not answer (or refused for our credentials) to the next one it opens. */
  up: boolean;
  /** Targets whose last tunnel the proxy refused. */
  refusedTargets: number;
}

/** Targets remembered as refused; past this the oldest is forgotten (a webhook host is an app's to choose). */
const REFUSED_KEPT = 1000;

export class EgressState {
  private readonly outage: OutageLog;
  private readonly refused = new Map<string, number>();

  constructor(
    private readonly proxy: string,
    private readonly logger: Logger = silentLogger(),
  ) {
    this.outage = outageLog(logger, `egress proxy ${proxy}`);
  }

  opened(host: string, port: number): void {
    this.outage.up();
    const target = authorityOf(host, port);
    if (this.refused.delete(target)) this.logger.info({ proxy: this.proxy, target }, 'egress proxy opens tunnels to this target again');
  }

  failed(host: string, port: number, error: unknown): void {
    const refusal = error instanceof TunnelError && error.kind === 'refused' && error.status !== 407;
    if (!refusal) return this.outage.down(error);
    // It answered: the proxy is up, this target is refused.
    this.outage.up();
    const target = authorityOf(host, port);
    if (!this.refused.has(target)) {
      this.logger.warn({ proxy: this.proxy, target, status: error.status }, 'egress proxy refuses tunnels to this target; held until it opens one');
      if (this.refused.size >= REFUSED_KEPT) this.refused.delete(this.refused.keys().next().value as string);
    }
    this.refused.set(target, error.status ?? 0);
  }

  snapshot(): EgressSnapshot {
    return { proxy: this.proxy, up: !this.outage.isDown, refusedTargets: this.refused.size };
  }
}
