// Google's token endpoint, simulated: an assertion (RS256 JWT) is checked as Google checks it
// (the signature with the service account's public key; iss, scope, aud, iat and exp at most an
// hour apart, not expired) and exchanged for an opaque access token that messages:send accepts
// until it expires or is revoked. With no account configured, any well-formed RS256 JWT with the
// right claims passes and its token serves every project (make dev, h2load ceilings).
import { createPublicKey, randomBytes, verify, type KeyObject } from 'node:crypto';

export const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';

export interface SimAccount {
  clientEmail: string;
  projectId: string;
  /** PEM of the public key (or of the private key: its public half is taken). */
  publicKey: string;
}

export interface IssuedToken {
  clientEmail: string;
  /** The project the token may send to; undefined with no account configured. */
  projectId?: string;
  expiresAt: number;
}

export type Exchange = { ok: true; accessToken: string; expiresIn: number } | { ok: false; status: number; error: string; description: string };

const MAX_LIFETIME_S = 3600;
const SKEW_S = 60;

function decodePart(part: string | undefined): Record<string, unknown> | undefined {
  if (!part) return undefined;
  try {
    const v: unknown = JSON.parse(Buffer.from(part, 'base64url').toString());
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export class TokenIssuer {
  private readonly accounts = new Map<string, { projectId: string; key: KeyObject }>();
  private readonly tokens = new Map<string, IssuedToken>();
  /** Tokens issued per client email since start / reset. */
  minted: Record<string, number> = {};

  constructor(
    accounts: SimAccount[],
    private readonly lifetimeS = 3600,
  ) {
    for (const a of accounts) this.accounts.set(a.clientEmail, { projectId: a.projectId, key: createPublicKey(a.publicKey) });
  }

  exchange(form: URLSearchParams, audience: string, nowMs = Date.now()): Exchange {
    const refuse = (description: string): Exchange => ({ ok: false, status: 400, error: 'invalid_grant', description });
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return { ok: false, status: 400, error: 'unsupported_grant_type', description: 'grant_type must be urn:ietf:params:oauth:grant-type:jwt-bearer' };
    const parts = (form.get('assertion') ?? '').split('.');
    const header = decodePart(parts[0]);
    const claims = decodePart(parts[1]);
    if (parts.length !== 3 || !header || !claims) return refuse('Invalid JWT: the assertion is not a JWT');
    if (header.alg !== 'RS256') return refuse('Invalid JWT: alg must be RS256');
    const nowS = Math.floor(nowMs / 1000);
    const { iss, scope, aud, iat, exp } = claims;
    if (typeof iss !== 'string' || typeof iat !== 'number' || typeof exp !== 'number') return refuse('Invalid JWT: iss, iat and exp are required');
    if (scope !== FCM_SCOPE && !(typeof scope === 'string' && scope.split(' ').includes(FCM_SCOPE))) return refuse(`Invalid JWT: scope must include ${FCM_SCOPE}`);
    if (aud !== audience) return refuse(`Invalid JWT: aud must be ${audience}`);
    if (exp - iat > MAX_LIFETIME_S || exp <= iat) return refuse('Invalid JWT: exp must be after iat and at most an hour later');
    if (iat > nowS + SKEW_S || exp <= nowS) return refuse('Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe');
    const account = this.accounts.get(iss);
    if (this.accounts.size > 0) {
      if (!account) return { ok: false, status: 401, error: 'invalid_client', description: 'The OAuth client was not found.' };
      const signed = Buffer.from(`${parts[0]}.${parts[1]}`);
      if (!verify('RSA-SHA256', signed, account.key, Buffer.from(parts[2], 'base64url'))) return refuse('Invalid JWT Signature.');
    }
    const accessToken = `ya29.sim-${randomBytes(24).toString('base64url')}`;
    this.tokens.set(accessToken, { clientEmail: iss, projectId: account?.projectId, expiresAt: nowMs + this.lifetimeS * 1000 });
    this.minted[iss] = (this.minted[iss] ?? 0) + 1;
    return { ok: true, accessToken, expiresIn: this.lifetimeS };
  }

  /** The token's grant, or undefined when unknown, revoked or expired. */
  check(accessToken: string, nowMs = Date.now()): IssuedToken | undefined {
    const t = this.tokens.get(accessToken);
    return t && t.expiresAt > nowMs ? t : undefined;
  }

  /** Every token issued so far stops working (the next send with one answers 401). */
  revokeAll(): void {
    this.tokens.clear();
  }

  resetCounts(): void {
    this.minted = {};
  }
}
