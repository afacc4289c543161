// Each device goes to its own platform's gateway (subscriptions.platform: 'android' to FCM, the
// rest to APNs; issue 39) and an iOS one to its own environment's gateway (a development build's
// token is valid only on the sandbox one; docs/delivery.md "Token hygiene"): at most two APNs
// clients per chunk. A message knows whether its gateway is not the App's own: outcomes.ts reads
// BadCertificateEnvironment by it.
import type { Device } from '../core/delivery/chunks.js';
import { apnsHeaderValues } from '../core/payload/apns-headers.js';
import type { ApnsClient, ApnsMessage } from '../core/apns/types.js';
import { CredentialsUnusableError, type ApnsClients } from '../core/apns/clients.js';
import type { FcmMessage } from '../core/fcm/types.js';
import { buildFcmMessage, fcmRequestBody } from '../core/payload/fcm-message.js';
import { pickLanguage } from '../core/payload/language.js';
import type { Platform } from '../core/send-model/request.js';
import { payloadFor, payloadWithoutChannel, type SendContext } from './send-cache.js';

/**
 * The chunk's devices by gateway, each in the chunk's order. A platform the send leaves out
 * (`isIos` / `isAndroid` false: `platforms`) gets none, whatever loaded them: they are skipped.
 */
export function byPlatform(devices: Device[], platforms?: readonly Platform[]): { ios: Device[]; android: Device[] } {
  const ios: Device[] = [];
  const android: Device[] = [];
  const iosToo = !platforms || platforms.includes('ios');
  const androidToo = !platforms || platforms.includes('android');
  for (const d of devices) {
    if (d.platform === 'android') {
      if (androidToo) android.push(d);
    } else if (iosToo) ios.push(d);
  }
  return { ios, android };
}

/** The Android devices' messages:send bodies: one message per language, serialised once per send, the token spliced per device. */
export function fcmMessages(send: SendContext, devices: Device[]): FcmMessage[] {
  return devices.map((d) => ({ token: d.token, body: fcmRequestBody(fcmMessageJson(send, d.language), d.token) }));
}

function fcmMessageJson(send: SendContext, language: string | null): string {
  const key = `\0fcm:${language ?? ''}`;
  let json = send.payloads.get(key);
  if (json === undefined) {
    json = JSON.stringify(buildFcmMessage(send.request, pickLanguage(send.request, language ?? undefined), { sendId: send.sendId }));
    send.payloads.set(key, json);
  }
  return json;
}

/** A message with the client of its device's environment, and whether that is not the App's own. */
export type RoutedMessage = ApnsMessage & { client: ApnsClient; offEnvironment: boolean };

/**
 * The devices' messages, each with its gateway's client; or, when the app's credentials cannot
 * make a client (none stored, a key that does not load), that error: the send stops.
 */
export async function routeMessages(clients: ApnsClients, send: SendContext, credentialsVersion: number, devices: Device[]): Promise<RoutedMessage[] | CredentialsUnusableError> {
  const { app, request } = send;
  const clientOf = new Map<Device['environment'], ApnsClient>();
  try {
    for (const d of devices) {
      const environment = d.environment ?? app.environment;
      if (!clientOf.has(environment)) clientOf.set(environment, await clients.get(app, credentialsVersion, environment));
    }
  } catch (error) {
    if (error instanceof CredentialsUnusableError) return error;
    throw error;
  }
  const headers = apnsHeaderValues({ ...request, apns: request.apns ?? {} }, Date.now() / 1000);
  return devices.map((d) => {
    const environment = d.environment ?? app.environment;
    const offEnvironment = environment !== app.environment;
    // A broadcast channel lives in the App's environment: a push-to-start to a device of the other
    // one goes without it (its activity registers an update token instead).
    const payload = offEnvironment && request.liveActivity?.channelId !== undefined ? payloadWithoutChannel(send, d.language) : payloadFor(send, d.language);
    return { token: d.token, payload, ...headers, client: clientOf.get(environment)!, offEnvironment };
  });
}
