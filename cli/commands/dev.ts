// `herald dev`: every role in one process for a laptop: the api, a sender (which also fires due
// scheduled sends and runs the outbox relay) and, when HERALD_APNS_URL is not set, the APNs
// simulator as the gateway, so a send made with curl is delivered end to end; likewise fcm-sim for
// Android when HERALD_FCM_URL is not set (its token endpoint on 2202, for a demo service account's
// token_uri: https://127.0.0.1:2202/token). With HERALD_DEV_FCM_APP and
// HERALD_DEV_FCM_SERVICE_ACCOUNT (scripts/dev.sh sets both), that App gets the service account as
// its FCM credentials, pointed at the simulator (dev-fcm.ts).
import type { Runtime } from '../runtime.js';
import { runApi } from './api.js';
import { runSender } from './sender.js';
import { storeDemoFcmCredentials } from './dev-fcm.js';

export async function runDev(rt: Runtime): Promise<void> {
  let senderRt = rt;
  let apiRt = rt;
  if (!rt.config.apnsUrl) {
    const { startApnsSim } = await import('../../apns-sim/index.js');
    const sim = await startApnsSim({ certDir: '.herald/apns-sim', logger: rt.logger.child({ component: 'apns-sim' }) });
    rt.logger.info({ url: sim.url, controlUrl: sim.controlUrl }, 'dev: delivering to the APNs simulator');
    // For the person at the terminal: where the payloads Apple would receive can be read.
    process.stdout.write(`\nAPNs simulator: what Apple would receive is at ${sim.controlUrl}/deliveries?limit=20\n\n`);
    // The api sends Live Activity broadcasts and manages their channels, the sender's scheduler
    // deletes them (issue 29): the simulator's management port for both.
    senderRt = { ...rt, config: Object.freeze({ ...rt.config, apnsUrl: sim.url, apnsCaFile: sim.caFile, apnsBroadcastUrl: rt.config.apnsBroadcastUrl ?? sim.managementUrl }) };
    apiRt = senderRt;
    rt.onShutdown('apns simulator', () => sim.close());
  }
  if (!rt.config.fcmUrl) {
    const { startFcmSim } = await import('../../fcm-sim/index.js');
    const sim = await startFcmSim({ certDir: '.herald/fcm-sim', port: 2201, tokenPort: 2202, controlPort: 2203, logger: rt.logger.child({ component: 'fcm-sim' }) });
    process.stdout.write(`FCM simulator: what Google would receive is at ${sim.controlUrl}/deliveries?limit=20 (token_uri ${sim.tokenUri})\n\n`);
    senderRt = { ...senderRt, config: Object.freeze({ ...senderRt.config, fcmUrl: sim.url, fcmCaFile: sim.caFile }) };
    rt.onShutdown('fcm simulator', () => sim.close());
    const app = process.env.HERALD_DEV_FCM_APP;
    const serviceAccountFile = process.env.HERALD_DEV_FCM_SERVICE_ACCOUNT;
    if (app && serviceAccountFile) await storeDemoFcmCredentials({ databaseUrl: rt.config.databaseUrl, app, serviceAccountFile, tokenUri: sim.tokenUri }, rt.logger);
  }
  await runSender(senderRt);
  await runApi(apiRt);
}
