// Deleting the broadcast channels of Live Activities that are over (issue 29,
// docs/live-activities.md "Channel deletion and quota"). Run once a minute by the scheduler's
// leader beside the ended activities' update tokens (core/send/scheduler.ts): channels dismissed
// after an end, or 12 hours past their last start, are taken out of use (retired, one statement),
// then deleted with Apple's channel management API (the simulator's DELETE); a DELETE that fails
// is tried again 5 minutes later, and the App is marked failing (its BroadcastChannelsReady
// condition) until a channel call succeeds, and each channel not deleted is told to the caller's
// observer (the sender and the controller count it in herald_live_activity_channel_failures_total
// {stage="delete"}: core imports no metrics library). Apple answering BadChannelId means it has no
// such channel any more: forgotten as deleted.
import type { Pool } from '../store/db.js';
import type { Logger } from '../log.js';
import { claimRetiredChannels, forgetRetiredChannel, noteRetiredFailure, retireDueChannels, type RetiredChannel } from './channels.js';
import { ChannelManagers, channelFailureReason, type ChannelManagementSettings } from './channel-managers.js';
import { recordChannelFailure, recordChannelSuccess } from './channel-health.js';

/** Channels retired and DELETEs sent per statement: a minute's round works off a backlog in batches. */
const BATCH = 200;

export interface ChannelSweepResult {
  retired: number;
  deleted: number;
  failed: number;
}

/** What the sweep tells its caller: `channels` of one app not deleted, for `reason` (a bounded set). */
export interface ChannelSweepObserver {
  deleteFailed(reason: string, channels: number): void;
}

export class ChannelSweep {
  private readonly managers: ChannelManagers;

  constructor(
    private readonly pool: Pool,
    settings: ChannelManagementSettings,
    private readonly logger: Logger,
    private readonly observer?: ChannelSweepObserver,
  ) {
    this.managers = new ChannelManagers(pool, settings);
  }

  /** One round: retire what is due, then DELETE what is retired, until nothing is due or `stop` says so. */
  async sweep(opts: { stop?: () => boolean } = {}): Promise<ChannelSweepResult> {
    const result: ChannelSweepResult = { retired: 0, deleted: 0, failed: 0 };
    for (;;) {
      const n = (await retireDueChannels(this.pool, BATCH)).length;
      result.retired += n;
      if (n < BATCH || opts.stop?.()) break;
    }
    while (!opts.stop?.()) {
      const claimed = await claimRetiredChannels(this.pool, BATCH);
      for (const [appId, channels] of groupBy(claimed, (c) => c.appId)) await this.deleteAll(appId, channels, result);
      if (claimed.length < BATCH) break;
    }
    return result;
  }

  /** Deletes one app's retired channels at Apple, one connection for them all. */
  private async deleteAll(appId: string, channels: Array<RetiredChannel & { bundleId: string }>, result: ChannelSweepResult): Promise<void> {
    const byEnvironment = groupBy(channels, (c) => c.environment);
    for (const [environment, list] of byEnvironment) {
      let manager;
      try {
        manager = await this.managers.open({ id: appId, bundleId: list[0].bundleId, environment });
      } catch (error) {
        this.logger.warn({ appId, err: error }, 'live activity channels not deleted: credentials unusable');
        await this.failed(appId, list, 'CredentialsUnusable', result);
        continue;
      }
      if (!manager) {
        await this.failed(appId, list, 'NoCredentials', result);
        continue;
      }
      try {
        let ok = false;
        for (const c of list) {
          const answer = await manager.delete(c.channelId);
          // 400 BadChannelId: Apple has no such channel (deleted before, or by it): nothing left to do.
          if (answer.status === 204 || answer.status === 200 || (answer.status === 400 && answer.reason === 'BadChannelId')) {
            await forgetRetiredChannel(this.pool, c);
            result.deleted++;
            ok = true;
          } else {
            await this.failed(appId, [c], channelFailureReason(answer.reason, answer.status), result);
          }
        }
        if (ok) await recordChannelSuccess(this.pool, appId);
      } finally {
        manager.close();
      }
    }
  }

  private async failed(appId: string, list: RetiredChannel[], reason: string, result: ChannelSweepResult): Promise<void> {
    for (const c of list) await noteRetiredFailure(this.pool, c, reason);
    result.failed += list.length;
    this.observer?.deleteFailed(reason, list.length);
    await recordChannelFailure(this.pool, appId, 'delete', reason);
    this.logger.warn({ appId, channels: list.length, reason }, 'live activity channel deletion failed: tried again in 5 minutes');
  }
}

/** Map.groupBy, which Node 20 lacks. */
function groupBy<T, K>(list: T[], key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of list) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}
