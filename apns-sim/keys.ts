// Provider-token signing keys in the shape Apple hands them out: an ES256 (P-256) private key as
// a PKCS#8 PEM (the `AuthKey_<KEYID>.p8` file) and its public half (SPKI PEM) for the simulator.
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto';

export interface ApnsKeyPair {
  keyId: string;
  /** PKCS#8 PEM, the content of Apple's `AuthKey_<keyId>.p8`. Secret. */
  privateKeyP8: string;
  /** SPKI PEM, what `startApnsSim({ keys })` accepts. */
  publicKeyPem: string;
}

const KEY_ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** A random 10-character id in Apple's key-id / team-id format. */
export function randomAppleId(): string {
  const bytes = randomBytes(10);
  let id = '';
  for (const b of bytes) id += KEY_ID_ALPHABET[b % KEY_ID_ALPHABET.length];
  return id;
}

export function generateApnsKeyPair(keyId: string = randomAppleId()): ApnsKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return {
    keyId,
    privateKeyP8: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

/** Accepts either a public key PEM or a .p8 private key PEM and returns the public key PEM. */
export function publicKeyPemOf(pem: string): string {
  if (pem.includes('PRIVATE KEY')) {
    return createPublicKey(createPrivateKey(pem)).export({ type: 'spki', format: 'pem' }).toString();
  }
  return createPublicKey(pem).export({ type: 'spki', format: 'pem' }).toString();
}
