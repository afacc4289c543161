// Each device goes to its own environment's gateway (a development build's token is valid only on
// the sandbox one; docs/delivery.md "Token hygiene"): at most two clients per chunk. A message
// knows whether its gateway is not the App's own: outcomes.ts reads BadCertificateEnvironment by it.
import type { Device } from '../core/delivery/chunks.js';
import { apnsHeaderValues } from '../core/payload/apns-headers.js';
import type { ApnsClient, ApnsMessage } from '../core/apns/types.js';
import { CredentialsUnusableError, type ApnsClients } from '../core/apns/clients.js';
import { payloadFor, payloadWithoutChannel, type SendContext } from './send-cache.js';

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
