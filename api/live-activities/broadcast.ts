// Apple's broadcast push behind `activity_id` (issue 29, docs/live-activities.md "Broadcast
// channels"), for Apps with spec.liveActivities.broadcast. At a start, the activity's channel —
// kept in live_activity_channels, else made with Apple's channel management API in the App's
// environment — so the push-to-start names it (aps.input-push-channel) and iOS 18 subscribes the
// new activity. At an update or end, ONE request to that channel, beside the send that goes per
// token to the installs that registered an update token (the devices before iOS 18: an activity
// subscribed to a channel has no token). Any failure here falls back to per-token delivery only:
// logged, and counted in herald_live_activity_channel_failures_total.
import { Counter, type Registry } from 'prom-client';
import type { Pool } from '../../core/store/db.js';
import type { Logger } from '../../core/log.js';
import { getApp, getCredentials, type AppRecord } from '../../core/apps/app-store.js';
import { findActivityChannel, keepActivityChannel, type ActivityChannelKey } from '../../core/live-activities/channels.js';
import { ACTIVITY_ID } from '../../core/live-activities/names.js';
import { buildApnsPayloadForDevice } from '../../core/payload/apns-payload.js';
import { apnsHeaderValues } from '../../core/payload/apns-headers.js';
import type { SendRequest } from '../../core/send-model/request.js';
import { ApnsClients, CredentialsUnusableError, toApnsCredentials, type ApnsSettings } from '../../core/apns/clients.js';
import type { ApnsCredentials } from '../../core/apns/types.js';
import { ProviderTokenSigner } from '../../core/apns/provider-token.js';
import { createChannelManager } from '../../core/apns/channel-management.js';

export interface BroadcastSettings extends ApnsSettings {
  /** HERALD_APNS_BROADCAST_URL: overrides Apple's channel management host. */
  broadcastUrl?: string;
}

/**
 * Channels keep the most recent message (policy 1): a device that was offline gets the latest
 * state when it comes back, and an update's apns-expiration (its ttl) applies as to a token.
 */
const STORAGE_POLICY = 1;

export class LiveActivityBroadcast {
  private readonly clients: ApnsClients;
  private readonly failures: Counter<'stage' | 'reason'>;
  private readonly requests: Counter<'status'>;
  private readonly signers = new Map<string, { material: string; signer: ProviderTokenSigner }>();

  constructor(
    private readonly pool: Pool,
    private readonly settings: BroadcastSettings,
    private readonly logger: Logger,
    registry: Registry,
  ) {
    // One connection per app and environment is plenty: a broadcast is one request per update.
    this.clients = new ApnsClients(pool, { ...settings, client: { ...settings.client, connections: 1 } }, logger);
    this.failures = new Counter({
      name: 'herald_live_activity_channel_failures_total',
      help: 'Broadcast channel work that failed and fell back to per-token delivery, by stage (create, broadcast) and reason',
      labelNames: ['stage', 'reason'],
      registers: [registry],
    });
    this.requests = new Counter({
      name: 'herald_live_activity_broadcasts_total',
      help: "Live Activity broadcast requests to Apple, by Apple's status (0: no answer)",
      labelNames: ['status'],
      registers: [registry],
    });
  }

  /**
   * One provider-token signer per app for channel management, not one per start: Apple refuses
   * a token refreshed more often than every 20 minutes (TooManyProviderTokenUpdates). A new key
   * (rotated credentials) gets a new signer.
   */
  private signerFor(appId: string, credentials: ApnsCredentials): ProviderTokenSigner | undefined {
    if (credentials.kind !== 'token') return undefined;
    const material = `${credentials.keyId}\n${credentials.teamId}\n${credentials.keyP8}`;
    const kept = this.signers.get(appId);
    if (kept?.material === material) return kept.signer;
    const signer = new ProviderTokenSigner(credentials.keyP8, credentials.keyId, credentials.teamId);
    this.signers.set(appId, { material, signer });
    return signer;
  }

  private fail(stage: 'create' | 'broadcast', reason: string, fields: Record<string, unknown>): undefined {
    this.failures.inc({ stage, reason });
    this.logger.warn({ ...fields, stage, reason }, 'live activity broadcast channel failed: per-token delivery only');
    return undefined;
  }

  /**
   * The activity's channel for a start, made when it has none; undefined: per-token only. Never
   * throws: the start is accepted by then, and a failure here (credentials that do not unseal or
   * sign, the database) is a fallback, not a 500.
   */
  async channelFor(app: AppRecord, activityId: unknown): Promise<string | undefined> {
    // A start the call's rules refuse (422) makes no channel.
    if (!app.liveActivityBroadcast || typeof activityId !== 'string' || !ACTIVITY_ID.test(activityId)) return undefined;
    try {
      return await this.makeChannel(app, activityId);
    } catch (error) {
      return this.fail('create', failureReason(error), { appId: app.id, err: error });
    }
  }

  private async makeChannel(app: AppRecord, activityId: string): Promise<string | undefined> {
    const key: ActivityChannelKey = { appId: app.id, activity: activityId, environment: app.environment };
    const known = await findActivityChannel(this.pool, key);
    if (known) return known.channelId;
    const stored = await getCredentials(this.pool, app.id);
    if (!stored) return this.fail('create', 'NoCredentials', { appId: app.id });
    const target = { credentials: toApnsCredentials(stored), topic: app.bundleId, environment: app.environment, url: this.settings.broadcastUrl, ca: this.settings.ca };
    const manager = createChannelManager(target, { signer: this.signerFor(app.id, target.credentials) });
    try {
      const made = await manager.create(STORAGE_POLICY);
      if (!made.channelId) return this.fail('create', made.reason ?? `Status${made.status}`, { appId: app.id, status: made.status });
      const kept = await keepActivityChannel(this.pool, key, made.channelId);
      // Another start of the same activity kept its channel first: ours would only use up the quota.
      if (kept !== made.channelId) await manager.delete(made.channelId);
      this.logger.info({ appId: app.id, environment: app.environment }, 'live activity broadcast channel created');
      return kept;
    } finally {
      manager.close();
    }
  }

  /**
   * An update or end, after its send is committed: one request to the activity's channel, when it
   * has one. Never throws: the update is accepted already, and a 500 would have a client without
   * an Idempotency-Key send it twice; a failure is per-token delivery only, counted and logged.
   */
  async broadcast(appId: string, request: SendRequest): Promise<void> {
    try {
      const app = await getApp(this.pool, appId);
      if (app && !app.disabled) await this.sendToChannel(app, request);
    } catch (error) {
      this.fail('broadcast', failureReason(error), { appId, err: error });
    }
  }

  private async sendToChannel(app: AppRecord, request: SendRequest): Promise<void> {
    const la = request.liveActivity;
    if (!app.liveActivityBroadcast || !la || la.event === 'start') return;
    const channel = await findActivityChannel(this.pool, { appId: app.id, activity: la.activityId, environment: app.environment });
    if (!channel) return;
    let client;
    try {
      client = await this.clients.get(app, channel.credentialsVersion);
    } catch (error) {
      if (!(error instanceof CredentialsUnusableError)) throw error;
      return this.fail('broadcast', 'CredentialsUnusable', { appId: app.id });
    }
    // Every subscribed device gets the one payload: the send's default language.
    const payload = buildApnsPayloadForDevice(request, request.defaultLanguage);
    const [result] = await client.send([{ token: '', channelId: channel.channelId, payload, ...apnsHeaderValues(request, Date.now() / 1000) }]);
    this.requests.inc({ status: String(result.status) });
    if (result.status !== 200) this.fail('broadcast', result.reason ?? `Status${result.status}`, { appId: app.id, status: result.status });
  }

  close(): Promise<void> {
    return this.clients.close();
  }
}

/** A thrown failure's label: a few known kinds, else Error (the metric's labels stay bounded). */
function failureReason(error: unknown): string {
  return error instanceof CredentialsUnusableError ? 'CredentialsUnusable' : 'Error';
}
