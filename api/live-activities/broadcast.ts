// Apple's broadcast push behind `activity_id` (issue 29, docs/live-activities.md "Broadcast
// channels"), for Apps with spec.liveActivities.broadcast. At a start (or the app-facing channel
// call), the activity's channel — kept in live_activity_channels, else made with Apple's channel
// management API in the App's environment, within Apple's quota — so the push-to-start names it
// (aps.input-push-channel) and iOS 18 subscribes the new activity. At an update or end, ONE
// request to that channel, beside the send that goes per token to the installs that registered an
// update token (the devices before iOS 18). Any failure here falls back to per-token delivery
// only: logged, counted in herald_live_activity_channel_failures_total, shown in the App's
// BroadcastChannelsReady condition and, for an update, in its report.
import { Counter, type Registry } from 'prom-client';
import type { Pool } from '../../core/store/db.js';
import type { Logger } from '../../core/log.js';
import type { AppRecord } from '../../core/apps/app-store.js';
import {
  APPLE_CHANNEL_QUOTA, endActivityChannel, findActivityChannel, forgetRetiredChannel, keepActivityChannel, makeRoomForChannel,
  startActivityChannel, type ActivityChannel, type ActivityChannelKey,
} from '../../core/live-activities/channels.js';
import { ChannelManagers, channelFailureReason, type ChannelManagementSettings } from '../../core/live-activities/channel-managers.js';
import { CHANNEL_FAILURES_METRIC, recordChannelFailure, recordChannelSuccess, type ChannelStage } from '../../core/live-activities/channel-health.js';
import { recordBroadcastOutcome, type BroadcastOutcome } from '../../core/live-activities/broadcast-outcome.js';
import { ACTIVITY_ID } from '../../core/live-activities/names.js';
import { buildApnsPayloadForDevice } from '../../core/payload/apns-payload.js';
import { apnsHeaderValues } from '../../core/payload/apns-headers.js';
import type { SendRequest } from '../../core/send-model/request.js';
import { ApnsClients, CredentialsUnusableError, type ApnsSettings } from '../../core/apns/clients.js';
import type { ApnsClient } from '../../core/apns/types.js';

export interface BroadcastSettings extends ApnsSettings {
  /** HERALD_APNS_BROADCAST_URL: overrides Apple's channel management host. */
  broadcastUrl?: string;
  /** Channels per app and environment before the quota policy retires one (Apple's 10,000; a test's few). */
  channelQuota?: number;
}

/**
 * Channels keep the most recent message (policy 1): a device that was offline gets the latest
 * state when it comes back, and an update's apns-expiration (its ttl) applies as to a token.
 */
const STORAGE_POLICY = 1;

/** An update's channel and client, looked up beside the recording of its send (the fast lane). */
export type PreparedBroadcast = Promise<{ channel: ActivityChannel; client: ApnsClient } | { failed: string; error?: unknown } | undefined>;

export class LiveActivityBroadcast {
  private readonly clients: ApnsClients;
  private readonly managers: ChannelManagers;
  private readonly failures: Counter<'stage' | 'reason'>;
  private readonly requests: Counter<'status'>;

  constructor(
    private readonly pool: Pool,
    private readonly settings: BroadcastSettings,
    private readonly logger: Logger,
    registry: Registry,
  ) {
    // One connection per app and environment is plenty: a broadcast is one request per update.
    this.clients = new ApnsClients(pool, { ...settings, client: { ...settings.client, connections: 1 } }, logger);
    const management: ChannelManagementSettings = { broadcastUrl: settings.broadcastUrl, ca: settings.ca, dialer: settings.client?.dialer, providerTokens: settings.client?.providerTokens };
    this.managers = new ChannelManagers(pool, management);
    this.failures = new Counter({ ...CHANNEL_FAILURES_METRIC, registers: [registry] });
    this.requests = new Counter({
      name: 'herald_live_activity_broadcasts_total',
      help: "Live Activity broadcast requests to Apple, by Apple's status (0: no answer)",
      labelNames: ['status'],
      registers: [registry],
    });
  }

  /** Counts, logs and marks the App failing (its condition); never throws. */
  private async fail(stage: ChannelStage, reason: string, fields: Record<string, unknown> & { appId: string }): Promise<undefined> {
    this.failures.inc({ stage, reason });
    this.logger.warn({ ...fields, stage, reason }, 'live activity broadcast channel failed: per-token delivery only');
    await recordChannelFailure(this.pool, fields.appId, stage, reason).catch((err) => this.logger.warn({ err, appId: fields.appId }, 'channel failure not recorded'));
    return undefined;
  }

  /**
   * The activity's channel for a start (or the app-facing channel call), made when it has none;
   * undefined: per-token only. Never throws: the start is accepted by then, and a failure here
   * (credentials that do not unseal or sign, the database, Apple) is a fallback, not a 500.
   */
  async channelFor(app: AppRecord, activityId: unknown, environment: AppRecord['environment'] = app.environment): Promise<string | undefined> {
    // A start the call's rules refuse (422) makes no channel; nor does an install of the other environment.
    if (!app.liveActivityBroadcast || typeof activityId !== 'string' || !ACTIVITY_ID.test(activityId) || environment !== app.environment) return undefined;
    try {
      return await this.makeChannel(app, activityId);
    } catch (error) {
      return this.fail('create', failureReason(error), { appId: app.id, err: error });
    }
  }

  private async makeChannel(app: AppRecord, activityId: string): Promise<string | undefined> {
    const key: ActivityChannelKey = { appId: app.id, activity: activityId, environment: app.environment };
    const known = await startActivityChannel(this.pool, key);
    if (known) return known;
    const manager = await this.managers.open({ id: app.id, bundleId: app.bundleId, environment: app.environment });
    if (!manager) return this.fail('create', 'NoCredentials', { appId: app.id });
    try {
      // The quota policy: at Apple's limit the channel that matters least makes room (deleted now), else none.
      const room = await makeRoomForChannel(this.pool, app.id, app.environment, this.settings.channelQuota ?? APPLE_CHANNEL_QUOTA);
      if (!room.room) return await this.fail('create', 'QuotaReached', { appId: app.id });
      if (room.retired) {
        const gone = await manager.delete(room.retired.channelId);
        // Not deleted at Apple: the sweep tries again; the create below may then meet Apple's limit.
        if (gone.status === 204 || gone.status === 200) await forgetRetiredChannel(this.pool, room.retired);
        this.logger.info({ appId: app.id, status: gone.status }, 'live activity broadcast channel retired for the quota');
      }
      const made = await manager.create(STORAGE_POLICY);
      if (!made.channelId) return await this.fail('create', channelFailureReason(made.reason, made.status), { appId: app.id, status: made.status });
      const kept = await keepActivityChannel(this.pool, key, made.channelId);
      // Another start of the same activity kept its channel first: ours would only use up the quota.
      if (kept !== made.channelId) await manager.delete(made.channelId);
      await recordChannelSuccess(this.pool, app.id);
      this.logger.info({ appId: app.id, environment: app.environment }, 'live activity broadcast channel created');
      return kept;
    } finally {
      manager.close();
    }
  }

  /**
   * An update or end of an App using channels: its channel and the client to send on, looked up
   * while the send is recorded (never throws; undefined: no channel, per-token only).
   */
  prepare(app: AppRecord, request: SendRequest): PreparedBroadcast | undefined {
    const la = request.liveActivity;
    if (!app.liveActivityBroadcast || !la || la.event === 'start') return undefined;
    const lookup = async () => {
      const channel = await findActivityChannel(this.pool, { appId: app.id, activity: la.activityId, environment: app.environment });
      if (!channel) return undefined;
      try {
        return { channel, client: await this.clients.get(app, channel.credentialsVersion) };
      } catch (error) {
        if (!(error instanceof CredentialsUnusableError)) throw error;
        return { failed: 'CredentialsUnusable' };
      }
    };
    return lookup().catch((error) => ({ failed: failureReason(error), error }));
  }

  /**
   * Once the update is sure to be accepted: ONE request to the activity's channel, then, once its
   * send is committed (`sendId`; undefined: it was not), the outcome on the send (its report) and,
   * for an end, the channel's deletion date. Never throws: the update is accepted, and a 500 would
   * have a client without an Idempotency-Key send it twice; a failure is per-token delivery only,
   * counted and shown.
   */
  async broadcast(app: AppRecord, request: SendRequest, prepared: PreparedBroadcast, sendId: Promise<number | undefined>): Promise<void> {
    const la = request.liveActivity!;
    try {
      const found = await prepared;
      if (!found) return;
      let outcome: BroadcastOutcome;
      let err: unknown;
      if ('failed' in found) {
        outcome = { status: 'failed', reason: found.failed };
        err = found.error;
      } else {
        // Every subscribed device gets the one payload: the send's default language.
        const payload = buildApnsPayloadForDevice(request, request.defaultLanguage);
        const [result] = await found.client.send([{ token: '', channelId: found.channel.channelId, payload, ...apnsHeaderValues(request, Date.now() / 1000) }]);
        this.requests.inc({ status: String(result.status) });
        outcome = result.status === 200 ? { status: 'accepted' } : { status: 'failed', reason: channelFailureReason(result.reason, result.status) };
      }
      const id = await sendId;
      if (outcome.status === 'failed') await this.fail('broadcast', outcome.reason!, { appId: app.id, sendId: id, err });
      if (id !== undefined) await recordBroadcastOutcome(this.pool, app.id, id, outcome);
      if (la.event === 'end') await endActivityChannel(this.pool, { appId: app.id, activity: la.activityId, environment: app.environment }, la.dismissalDate);
    } catch (error) {
      await this.fail('broadcast', failureReason(error), { appId: app.id, err: error });
    }
  }

  close(): Promise<void> {
    return this.clients.close();
  }
}

/** A thrown failure's label: a few known kinds, else Error (the metric's labels stay bounded). */
function failureReason(error: unknown): string {
  return error instanceof CredentialsUnusableError ? 'CredentialsUnusable' : 'Error';
}
