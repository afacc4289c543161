// A chunk's devices to their gateways and back: iOS ones to Apple, each routed to its own
// environment's gateway (routing.ts) and sent in rounds until decided (retry-rounds.ts); Android
// ones to FCM (fcm-rounds.ts); both at once, then counted together (tally.ts). The outcome is the
// chunk's record (core/delivery/chunks.ts recordChunk).
//
// An App without FCM credentials: its Android devices are not sent and not counted failed; they
// are left out of the chunk's devices, so their entries count as skipped. An App with FCM but no
// APNs credentials: its iOS devices are skipped alike. With neither (or APNs credentials that do
// not load), the send stops as before. FCM refusing the App's credentials leaves its Android
// devices out (left_out, never failed) and lets the iOS part go on (docs/decisions.md "Issue 39").
import type { Logger } from '../core/log.js';
import type { ClaimedChunk } from '../core/delivery/claim.js';
import type { ChunkOutcome, Device } from '../core/delivery/chunks.js';
import { CredentialsUnusableError, type ApnsClients } from '../core/apns/clients.js';
import { FcmCredentialsUnusableError, type FcmClients } from '../core/fcm/clients.js';
import type { FcmClient } from '../core/fcm/types.js';
import type { Action } from '../core/gateway/action.js';
import { forGateway, type SenderMetrics } from './metrics.js';
import { FcmRounds } from './fcm-rounds.js';
import { RetryRounds, type RetrySettings } from './retry-rounds.js';
import { byPlatform, fcmMessages, routeMessages } from './routing.js';
import type { SendContext } from './send-cache.js';
import { countDeliveries, tally } from './tally.js';

interface Part {
  devices: Device[];
  actions: Action[];
  /** APNs refused the App's credentials (or they do not load): the send stops. */
  stop?: string;
}

const NONE: Part = { devices: [], actions: [] };

export interface DeliveryDeps {
  logger: Logger;
  metrics: SenderMetrics;
  clients: ApnsClients;
  /** Absent: no FCM gateway in this process; Android devices are skipped. */
  fcm?: FcmClients;
  settings: RetrySettings;
  stopping(): boolean;
}

export class Delivery {
  private readonly rounds: RetryRounds;
  private readonly fcmRounds: FcmRounds;

  constructor(private readonly deps: DeliveryDeps) {
    this.rounds = new RetryRounds(deps);
    this.fcmRounds = new FcmRounds(deps);
  }

  /** The gateways' answers for the devices, counted. `asked.askedApple` is set once a gateway decided on one. */
  async deliver(send: SendContext, claimed: Pick<ClaimedChunk, 'planned' | 'credentialsVersion'>, devices: Device[], asked: { askedApple: boolean }, log: Logger): Promise<ChunkOutcome> {
    const { ios, android } = byPlatform(devices, send.request.platforms);
    // FCM's client when there are Android devices, or iOS ones of an App without APNs credentials
    // (whether it has FCM ones decides between skipping them and stopping the send).
    const fcm = android.length || (ios.length && !send.app.hasApnsCredentials) ? await this.fcmClient(send) : undefined;
    // FCM only: the iOS devices are skipped like Android ones of an App without FCM credentials.
    const skipIos = ios.length > 0 && !send.app.hasApnsCredentials && fcm !== undefined && !(fcm instanceof FcmCredentialsUnusableError);
    if (android.length && fcm === undefined) log.info({ skipped: android.length }, 'the app has no FCM credentials; its Android devices are skipped');
    if (skipIos) log.info({ skipped: ios.length }, 'the app has no APNs credentials; its iOS devices are skipped');
    const [apple, google] = await Promise.all([
      ios.length && !skipIos ? this.toApple(send, claimed, ios, asked) : NONE,
      fcm === undefined || !android.length ? NONE : this.toFcm(fcm, send, android, asked),
    ]);
    const all = [...apple.devices, ...google.devices];
    const actions = [...apple.actions, ...google.actions];
    const outcome = tally(claimed.planned, all, actions);
    // An end: the tokens Apple took it for, dropped with the chunk's record (recordChunk).
    if (send.request.liveActivity?.event === 'end') outcome.ended = apple.devices.filter((_, i) => apple.actions[i].kind === 'sent').map(({ subscriptionId, token }) => ({ subscriptionId, token }));
    countDeliveries(forGateway(this.deps.metrics, 'apns'), apple.actions);
    countDeliveries(forGateway(this.deps.metrics, 'fcm'), google.actions);
    const fcmStop = google.actions.find((a) => a.kind === 'stop');
    if (fcmStop) {
      log.warn({ reason: fcmStop.reason, leftOut: google.actions.filter((a) => a.kind === 'stop').length }, 'FCM refused the app credentials; its Android devices are left out');
      // For the App's condition; the chunk's record does not wait on it (an outage here loses a note, not a device).
      await this.deps.fcm?.refused(send.app.id, fcmStop.reason).catch((error: unknown) => log.warn({ err: error }, 'could not record the FCM refusal'));
    } else if (google.actions.some((a) => a.kind === 'sent')) {
      await this.deps.fcm?.accepted(send.app.id).catch((error: unknown) => log.warn({ err: error }, 'could not clear the FCM refusal'));
    }
    if (apple.stop) log.warn({ reason: apple.stop }, 'APNs refused the app credentials; the send stops');
    return apple.stop ? { ...outcome, stop: apple.stop } : outcome;
  }

  private async fcmClient(send: SendContext): Promise<FcmClient | FcmCredentialsUnusableError | undefined> {
    if (!this.deps.fcm) return undefined;
    try {
      return await this.deps.fcm.get(send.app.id);
    } catch (error) {
      if (error instanceof FcmCredentialsUnusableError) return error;
      throw error;
    }
  }

  private async toApple(send: SendContext, claimed: Pick<ClaimedChunk, 'credentialsVersion'>, devices: Device[], asked: { askedApple: boolean }): Promise<Part> {
    const messages = await routeMessages(this.deps.clients, send, claimed.credentialsVersion, devices);
    if (messages instanceof CredentialsUnusableError) return { devices, actions: devices.map(() => ({ kind: 'stop', reason: messages.message })), stop: messages.message };
    const actions = await this.rounds.send(messages, asked);
    return { devices, actions, stop: (actions.find((a) => a.kind === 'stop') as { reason: string } | undefined)?.reason };
  }

  private async toFcm(fcm: FcmClient | FcmCredentialsUnusableError, send: SendContext, devices: Device[], asked: { askedApple: boolean }): Promise<Part> {
    if (fcm instanceof FcmCredentialsUnusableError) return { devices, actions: devices.map(() => ({ kind: 'stop', reason: 'FcmCredentialsUnusable' })) };
    return { devices, actions: await this.fcmRounds.send(fcm, fcmMessages(send, devices), asked) };
  }
}
