// Checks `authorization: bearer <JWT>` the way APNs does: ES256, header `kid`, claims `iss`
// (team id) and `iat`; older than an hour is ExpiredProviderToken.
//
// A verified token is cached by its exact text: APNs providers reuse one token for up to an hour
// across millions of requests, and an ECDSA verify per request would make the simulator, not
// the client under test, the bottleneck of every benchmark. The age is checked on every request.
import { createPublicKey, verify, type KeyObject } from 'node:crypto';

export interface AcceptedKey {
  keyId: string;
  /** When set, the token's `iss` must equal it. */
  teamId?: string;
  /** SPKI public key PEM (a .p8 private key is also accepted; its public half is used). */
  publicKey: string;
}

export type TokenVerdict =
  | { ok: true; keyId: string; teamId: string; iat: number }
  | { ok: false; reason: 'MissingProviderToken' | 'InvalidProviderToken' | 'ExpiredProviderToken' };

const MAX_AGE_SECONDS = 3600;
/** iat a little in the future is tolerated (clock skew), more is invalid. */
const FUTURE_SKEW_SECONDS = 300;
const CACHE_LIMIT = 10_000;

interface Parsed {
  keyId: string;
  teamId: string;
  iat: number;
}

export class ProviderTokenVerifier {
  private readonly keys = new Map<string, { teamId?: string; key: KeyObject }>();
  private readonly cache = new Map<string, Parsed | null>();
  /** The distinct tokens accepted per team (issue 37: a fleet presents one per team and key). */
  private readonly accepted = new Map<string, Set<string>>();

  constructor(keys: AcceptedKey[] = []) {
    for (const k of keys) {
      this.keys.set(k.keyId, { teamId: k.teamId, key: createPublicKey(k.publicKey) });
    }
  }

  /** With no configured key only the shape and age are checked (documented in docs/apns.md). */
  get checksSignatures(): boolean {
    return this.keys.size > 0;
  }

  check(authorization: string | undefined, nowSeconds = Math.floor(Date.now() / 1000)): TokenVerdict {
    if (!authorization) return { ok: false, reason: 'MissingProviderToken' };
    const m = /^bearer\s+(\S+)$/i.exec(authorization.trim());
    if (!m) return { ok: false, reason: 'InvalidProviderToken' };
    const jwt = m[1];
    let parsed = this.cache.get(jwt);
    if (parsed === undefined) {
      parsed = this.parseAndVerify(jwt);
      if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
      this.cache.set(jwt, parsed);
    }
    if (parsed === null) return { ok: false, reason: 'InvalidProviderToken' };
    if (parsed.iat > nowSeconds + FUTURE_SKEW_SECONDS) return { ok: false, reason: 'InvalidProviderToken' };
    if (nowSeconds - parsed.iat > MAX_AGE_SECONDS) return { ok: false, reason: 'ExpiredProviderToken' };
    const seen = this.accepted.get(parsed.teamId) ?? new Set<string>();
    if (seen.size < CACHE_LIMIT) seen.add(jwt);
    this.accepted.set(parsed.teamId, seen);
    return { ok: true, ...parsed };
  }

  /** How many different valid tokens the team presented since start. */
  presented(teamId: string): number {
    return this.accepted.get(teamId)?.size ?? 0;
  }

  private parseAndVerify(jwt: string): Parsed | null {
    const parts = jwt.split('.');
    if (parts.length !== 3) return null;
    const [h, c, s] = parts;
    let header: Record<string, unknown>;
    let claims: Record<string, unknown>;
    try {
      header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8'));
      claims = JSON.parse(Buffer.from(c, 'base64url').toString('utf8'));
    } catch {
      return null;
    }
    if (header.alg !== 'ES256' || typeof header.kid !== 'string' || header.kid === '') return null;
    if (typeof claims.iss !== 'string' || claims.iss === '') return null;
    if (typeof claims.iat !== 'number' || !Number.isInteger(claims.iat)) return null;
    const signature = Buffer.from(s, 'base64url');
    if (signature.length !== 64) return null;
    if (this.keys.size > 0) {
      const accepted = this.keys.get(header.kid);
      if (!accepted) return null;
      if (accepted.teamId !== undefined && accepted.teamId !== claims.iss) return null;
      const ok = verify('sha256', Buffer.from(`${h}.${c}`), { key: accepted.key, dsaEncoding: 'ieee-p1363' }, signature);
      if (!ok) return null;
    }
    return { keyId: header.kid, teamId: claims.iss, iat: claims.iat };
  }
}
