// Public entry of the APNs simulator (`herald apns-sim`, tests, benchmarks, `herald dev`).
export { startApnsSim, type ApnsSim, type ApnsSimOptions } from './sim.js';
export { runApnsSimCommand, parseApnsSimConfig } from './command.js';
export { generateApnsKeyPair, publicKeyPemOf, randomAppleId, type ApnsKeyPair } from './keys.js';
export { ensureCa, ensureServerCertificate, createClientCertificate, type ClientCertificate, type CertificateAuthority } from './certs.js';
export type { SimRule } from './rules.js';
export type { AcceptedKey } from './provider-token.js';
export type { SimStats, DeliveryRecord } from './recorder.js';
export type { SimAuthMode } from './gateway.js';
