// The provider authentication token: an ES256 JWT, header {alg, kid}, claims {iss: team id,
// iat}. Apple accepts a token for an hour and refuses refreshes more often than every 20 minutes
// for a team (TooManyProviderTokenUpdates), across all its connections: so the fleet presents one
// token per team and key (issue 37), from a FleetTokenSource (core/gateway/fleet-token.ts): in
// production the store-backed one (core/gateway/fleet-token-store.ts, built in cli/), else one
// minting in this process (`localTokenSource`: tests, benches, a laptop). The key and the token
// are never logged.
import { createHash, createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import type { FleetToken, FleetTokenSource } from '../gateway/fleet-token.js';
import { APNS_TOKEN_POLICY } from '../gateway/fleet-token-policy.js';

export interface SignedToken {
  /** The full authorization header value: `bearer <jwt>`. Secret. */
  authorization: string;
  generation: number;
}

export const TOKEN_REFRESH_MS = APNS_TOKEN_POLICY.renewAfterMs;

function b64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** The .p8 as a key object; a TypeError naming the key id (never quoting the key) otherwise. */
export function providerKey(keyP8: string, keyId: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(keyP8);
  } catch (err) {
    // The cause is kept for debugging; the message never quotes the key.
    throw new TypeError(`APNs key ${keyId} is not a valid PKCS#8 EC private key (.p8)`, { cause: err });
  }
  if (key.asymmetricKeyType !== 'ec') throw new TypeError(`APNs key ${keyId} is not an EC key`);
  return key;
}

/** A provider token (the JWT alone, no scheme) signed now. */
export function signProviderToken(key: KeyObject, keyId: string, teamId: string, nowMs: number): string {
  const head = `${b64url({ alg: 'ES256', kid: keyId })}.${b64url({ iss: teamId, iat: Math.floor(nowMs / 1000) })}`;
  const signature = sign('sha256', Buffer.from(head), { key, dsaEncoding: 'ieee-p1363' });
  return `${head}.${signature.toString('base64url')}`;
}

/**
 * The fleet's name for a team's key: team, key id and 16 hex digits of the public key's SHA-256
 * (a replaced .p8 under the same key id gets a token of its own). Not secret.
 */
export function providerTokenIdentity(key: KeyObject, keyId: string, teamId: string): string {
  const fingerprint = createHash('sha256').update(createPublicKey(key).export({ type: 'spki', format: 'der' })).digest('hex').slice(0, 16);
  return `${teamId}.${keyId}.${fingerprint}`;
}

/** A source minting in this process, with Apple's limits: no fleet, so only for tests, benches and a laptop. */
export function localTokenSource(keyP8: string, keyId: string, teamId: string, now: () => number = Date.now): FleetTokenSource {
  const key = providerKey(keyP8, keyId);
  let token: FleetToken | undefined;
  const mint = () => {
    const at = now();
    token = { value: signProviderToken(key, keyId, teamId, at), issuedAt: new Date(at), expiresAt: new Date(at + APNS_TOKEN_POLICY.lifetimeMs) };
    return token;
  };
  const age = (t: FleetToken) => now() - t.issuedAt.getTime();
  return {
    async current() {
      return token && age(token) < APNS_TOKEN_POLICY.renewAfterMs ? token : mint();
    },
    async renew(stale) {
      if (token && (token.value !== stale.value || age(token) < APNS_TOKEN_POLICY.minAgeMs)) return token;
      return mint();
    },
  };
}

/** Sync signing for tests and the simulator's tooling: a token of its own, renewed after 50 minutes. */
export class ProviderTokenSigner {
  private readonly key: KeyObject;
  private token: SignedToken | undefined;
  private issuedAt = 0;
  private generation = 0;

  constructor(
    keyP8: string,
    private readonly keyId: string,
    private readonly teamId: string,
    private readonly now: () => number = Date.now,
    private readonly refreshMs: number = TOKEN_REFRESH_MS,
  ) {
    this.key = providerKey(keyP8, keyId);
  }

  current(): SignedToken {
    if (!this.token || this.now() - this.issuedAt >= this.refreshMs) this.renew();
    return this.token as SignedToken;
  }

  /** Called after ExpiredProviderToken; only the first caller holding `generation` renews. */
  invalidate(generation: number): void {
    if (this.token && this.token.generation === generation) this.renew();
  }

  private renew(): void {
    this.issuedAt = this.now();
    this.generation += 1;
    this.token = { authorization: `bearer ${signProviderToken(this.key, this.keyId, this.teamId, this.issuedAt)}`, generation: this.generation };
  }
}
