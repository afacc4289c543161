// A throw-away service account and fcm-sim for the FCM client's tests.
import { generateKeyPairSync } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { FcmServiceAccount } from '../../core/fcm/credentials-store.js';
import type { FcmSim } from '../../fcm-sim/index.js';

export interface TestAccount {
  account: FcmServiceAccount;
  publicKey: string;
}

export function makeServiceAccount(projectId = 'herald-test', clientEmail = `herald@${projectId}.iam.gserviceaccount.com`): Omit<TestAccount, 'account'> & { account: Omit<FcmServiceAccount, 'tokenUri'> } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
  return { account: { projectId, clientEmail, privateKey }, publicKey };
}

/** The account's token_uri pointed at the sim. */
export const atSim = (a: Omit<FcmServiceAccount, 'tokenUri'>, sim: FcmSim): FcmServiceAccount => ({ ...a, tokenUri: sim.tokenUri });

export const simCa = (sim: FcmSim) => readFile(sim.caFile, 'utf8');

/** A messages:send body for `token`. */
export const messageBody = (token: string, message: Record<string, unknown> = {}) => JSON.stringify({ message: { token, notification: { title: 't', body: 'b' }, ...message } });
