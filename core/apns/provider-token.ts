// The provider authentication token: an ES256 JWT, header {alg, kid}, claims {iss: team id,
// iat}. Apple accepts a token for an hour and refuses refreshes more often than every 20 minutes
// (TooManyProviderTokenUpdates), so one token is shared and renewed after 50 minutes, or at once
// when APNs answers ExpiredProviderToken. The key and the token are never logged.
import { createPrivateKey, sign, type KeyObject } from 'node:crypto';

export interface SignedToken {
  /** The full authorization header value: `bearer <jwt>`. Secret. */
  authorization: string;
  generation: number;
}

export const TOKEN_REFRESH_MS = 50 * 60 * 1000;

function b64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

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
    try {
      this.key = createPrivateKey(keyP8);
    } catch (err) {
      // The cause is kept for debugging; the message never quotes the key.
      throw new TypeError(`APNs key ${keyId} is not a valid PKCS#8 EC private key (.p8)`, { cause: err });
    }
    if (this.key.asymmetricKeyType !== 'ec') throw new TypeError(`APNs key ${keyId} is not an EC key`);
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
    const now = this.now();
    const head = `${b64url({ alg: 'ES256', kid: this.keyId })}.${b64url({ iss: this.teamId, iat: Math.floor(now / 1000) })}`;
    const signature = sign('sha256', Buffer.from(head), { key: this.key, dsaEncoding: 'ieee-p1363' });
    this.generation += 1;
    this.issuedAt = now;
    this.token = { authorization: `bearer ${head}.${signature.toString('base64url')}`, generation: this.generation };
  }
}
