// A chunk's devices to Apple and back: each routed to its own environment's gateway (routing.ts),
// sent in rounds until decided (retry-rounds.ts), and counted (tally.ts). The outcome is the
// chunk's record (core/delivery/chunks.ts recordChunk).
import type { Logger } from '../core/log.js';
import type { ClaimedChunk } from '../core/delivery/claim.js';
import type { ChunkOutcome, Device } from '../core/delivery/chunks.js';
import { CredentialsUnusableError, type ApnsClients } from '../core/apns/clients.js';
import type { SenderMetrics } from './metrics.js';
import { RetryRounds, type RetrySettings } from './retry-rounds.js';
import { routeMessages } from './routing.js';
import type { SendContext } from './send-cache.js';
import { countDeliveries, tally } from './tally.js';

export class Delivery {
  private readonly rounds: RetryRounds;

  constructor(private readonly deps: { logger: Logger; metrics: SenderMetrics; clients: ApnsClients; settings: RetrySettings; stopping(): boolean }) {
    this.rounds = new RetryRounds(deps);
  }

  /** Apple's answers for the devices, counted. `asked.askedApple` is set once Apple decided on one. */
  async deliver(send: SendContext, claimed: Pick<ClaimedChunk, 'planned' | 'credentialsVersion'>, devices: Device[], asked: { askedApple: boolean }, log: Logger): Promise<ChunkOutcome> {
    const messages = await routeMessages(this.deps.clients, send, claimed.credentialsVersion, devices);
    if (messages instanceof CredentialsUnusableError) {
      return { ...tally(claimed.planned, devices, devices.map(() => ({ kind: 'stop', reason: messages.message }))), stop: messages.message };
    }
    const actions = await this.rounds.send(messages, asked);
    const outcome = tally(claimed.planned, devices, actions);
    // An end: the tokens Apple took it for, dropped with the chunk's record (recordChunk).
    if (send.request.liveActivity?.event === 'end') outcome.ended = devices.filter((_, i) => actions[i].kind === 'sent').map(({ subscriptionId, token }) => ({ subscriptionId, token }));
    countDeliveries(this.deps.metrics, actions);
    const stop = actions.find((a) => a.kind === 'stop') as { reason: string } | undefined;
    if (stop) log.warn({ reason: stop.reason }, 'APNs refused the app credentials; the send stops');
    return stop ? { ...outcome, stop: stop.reason } : outcome;
  }
}
