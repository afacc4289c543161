// Public entry of the FCM simulator (`herald fcm-sim`, tests, benchmarks).
export { startFcmSim, type FcmSim, type FcmSimOptions } from './sim.js';
export { runFcmSimCommand, parseFcmSimConfig, FCM_SIM_USAGE } from './command.js';
export { checkMessage } from './message-shape.js';
export type { FcmSimRule } from './rules.js';
export type { SimAccount } from './oauth.js';
export type { FcmDelivery, FcmSimStats } from './recorder.js';
