// Firebase credentials taken from a Secret (cluster) or a Secret document in an apps file: the
// service-account JSON Google's console gives (docs/operator.md "Firebase credentials"). Checked
// here, as APNs credentials are in credentials.ts, so a broken file is reported when the App is
// applied and not when a send fails; every failure is a CamelCase reason and a sentence.
import { createPrivateKey } from 'node:crypto';
import { isIP } from 'node:net';
import type { FcmServiceAccount } from '../fcm/credentials-store.js';
import { CredentialsError } from './credentials.js';

// The rules of core/validation/untrusted-json.ts for this one file, restated here: core/validation
// reaches core/apps through the audience and Live Activity schemas, so importing it would close a
// circle of folders (core/import-graph.test.ts).
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
function unstorableText(s: string): string | undefined {
  if (s.includes('\u0000')) return 'contains U+0000 (a NUL character), which cannot be stored';
  if (!(s as string & { isWellFormed(): boolean }).isWellFormed()) return 'contains an unpaired UTF-16 surrogate, which is not valid Unicode';
  return undefined;
}

export interface FcmSpec {
  secretRef: { name: string };
}

/** The Secret's key holding the JSON. */
export const FCM_SECRET_KEY = 'service-account.json';
/** A service-account file is about 2.4 KB; anything far larger is not one. */
export const FCM_JSON_MAX_BYTES = 16 * 1024;

// Google's project id: 6-30 of lowercase letters, digits and hyphens, a letter first, no hyphen
// last; older projects may carry a domain prefix ("example.com:project"). It goes into the send
// URL's path, so nothing else is let through.
const PROJECT_ID = /^(?:[a-z0-9.-]{1,63}:)?[a-z][a-z0-9-]{4,28}[a-z0-9]$/;
const CLIENT_EMAIL = /^[^\s@]{1,64}@[A-Za-z0-9.-]{1,190}$/;

/** Builds the service account from a Secret's data (values already decoded). Throws CredentialsError. */
export function fcmCredentialsFromSecret(spec: FcmSpec, data: Record<string, Buffer>): FcmServiceAccount {
  const secret = spec.secretRef.name;
  const raw = Object.hasOwn(data, FCM_SECRET_KEY) ? data[FCM_SECRET_KEY] : undefined;
  if (!raw || raw.length === 0) throw new CredentialsError('FcmKeyMissing', `Secret ${secret} has no ${FCM_SECRET_KEY} entry`);
  if (raw.length > FCM_JSON_MAX_BYTES) {
    throw new CredentialsError('FcmJsonInvalid', `${FCM_SECRET_KEY} in Secret ${secret} is ${raw.length} bytes, over the ${FCM_JSON_MAX_BYTES} bytes a service-account file can be`);
  }
  const json = parseObject(raw, secret);
  const field = (name: string): string => {
    const value = Object.hasOwn(json, name) ? json[name] : undefined;
    if (typeof value !== 'string' || value.trim() === '') {
      throw new CredentialsError('FcmFieldMissing', `${FCM_SECRET_KEY} in Secret ${secret} has no ${name}; download the file again from the Firebase console (Project settings, Service accounts)`);
    }
    const problem = unstorableText(value);
    if (problem) throw new CredentialsError('FcmFieldInvalid', `${name} in ${FCM_SECRET_KEY} of Secret ${secret} ${problem}`);
    return value;
  };
  if (Object.hasOwn(json, 'type') && json.type !== 'service_account') {
    throw new CredentialsError('FcmNotServiceAccount', `${FCM_SECRET_KEY} in Secret ${secret} is not a service account (its type is not service_account); generate a private key under Project settings, Service accounts`);
  }
  const projectId = field('project_id');
  if (!PROJECT_ID.test(projectId)) throw new CredentialsError('FcmFieldInvalid', `project_id in ${FCM_SECRET_KEY} of Secret ${secret} is not a Google Cloud project id`);
  const clientEmail = field('client_email');
  if (clientEmail.length > 254 || !CLIENT_EMAIL.test(clientEmail)) {
    throw new CredentialsError('FcmFieldInvalid', `client_email in ${FCM_SECRET_KEY} of Secret ${secret} is not an email address`);
  }
  const privateKey = field('private_key');
  checkRsaKey(privateKey, secret);
  const tokenUri = field('token_uri');
  checkTokenUri(tokenUri, secret);
  return { projectId, clientEmail, privateKey, tokenUri };
}

/** The JSON's top-level object, with no key that could reach a prototype when it is read. */
function parseObject(raw: Buffer, secret: string): Record<string, unknown> {
  const invalid = (why: string) => new CredentialsError('FcmJsonInvalid', `${FCM_SECRET_KEY} in Secret ${secret} ${why}`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(raw);
  } catch {
    throw invalid('is not UTF-8 text');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text, (key, value) => {
      if (PROTOTYPE_KEYS.has(key)) throw new CredentialsError('FcmJsonInvalid', `${FCM_SECRET_KEY} in Secret ${secret} has a key named ${key}, which no service account has`);
      return value;
    });
  } catch (error) {
    if (error instanceof CredentialsError) throw error;
    throw invalid('is not JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw invalid('is not a JSON object');
  return parsed as Record<string, unknown>;
}

/** A readable RSA private key, as Google issues it (the JWT is signed RS256). */
function checkRsaKey(pem: string, secret: string): void {
  let key;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new CredentialsError('FcmKeyUnreadable', `private_key in ${FCM_SECRET_KEY} of Secret ${secret} is not a readable PEM private key`);
  }
  if (key.asymmetricKeyType !== 'rsa') {
    throw new CredentialsError('FcmKeyWrongType', `private_key in ${FCM_SECRET_KEY} of Secret ${secret} must be an RSA key as Google issues it (the access token's JWT is signed RS256)`);
  }
}

/** https, or http to this machine only (a simulator in tests and `make dev`). */
function checkTokenUri(uri: string, secret: string): void {
  const bad = (why: string) => new CredentialsError('FcmTokenUriInvalid', `token_uri in ${FCM_SECRET_KEY} of Secret ${secret} ${why}`);
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw bad('is not a URL');
  }
  if (url.username || url.password) throw bad('must not carry a user name or password');
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return;
  throw bad(url.protocol === 'http:' ? 'must be https (http is accepted for this machine only: localhost, 127.0.0.1, ::1)' : 'must be an https URL');
}

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return isIP(host) === 6 && host === '::1';
}
