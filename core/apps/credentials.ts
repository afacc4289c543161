// APNs credentials taken from a Secret (cluster) or a Secret document in an apps file.
// Checked here so a broken key is reported when the app is applied, not when a send fails.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { createSecureContext } from 'node:tls';

export interface StoredCredentials {
  kind: 'token' | 'certificate';
  keyId?: string;
  teamId?: string;
  /** token: the .p8 PEM; certificate: a .p12, or PEM certificate followed by its key. */
  material: Buffer;
  passphrase?: string;
  expiresAt?: Date;
}

export interface CredentialsSpec {
  type: 'token' | 'certificate';
  secretRef: { name: string };
  keyId?: string;
  teamId?: string;
}

export class CredentialsError extends Error {
  override name = 'CredentialsError';
  constructor(readonly reason: string, message: string) {
    super(message);
  }
}

/** Builds credentials from a Secret's data (values already decoded). Throws CredentialsError. */
export function credentialsFromSecret(spec: CredentialsSpec, data: Record<string, Buffer>): StoredCredentials {
  if (spec.type === 'token') {
    const p8 = data['key.p8'];
    if (!p8) throw new CredentialsError('KeyMissing', `Secret ${spec.secretRef.name} has no key.p8 entry`);
    if (!spec.keyId || !/^[A-Z0-9]{10}$/.test(spec.keyId)) {
      throw new CredentialsError('KeyIdInvalid', 'credentials.keyId must be the 10-character key id Apple shows');
    }
    if (!spec.teamId || !/^[A-Z0-9]{10}$/.test(spec.teamId)) {
      throw new CredentialsError('TeamIdInvalid', 'credentials.teamId must be the 10-character team id Apple shows');
    }
    let key;
    try {
      key = createPrivateKey(p8);
    } catch {
      throw new CredentialsError('KeyUnreadable', `key.p8 in Secret ${spec.secretRef.name} is not a PEM private key`);
    }
    if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
      throw new CredentialsError('KeyWrongType', 'key.p8 must be an ES256 (P-256) key as Apple issues it');
    }
    return { kind: 'token', keyId: spec.keyId, teamId: spec.teamId, material: p8 };
  }
  const pem = data['tls.crt'] && data['tls.key'] ? Buffer.concat([data['tls.crt'], Buffer.from('\n'), data['tls.key']]) : undefined;
  const p12 = data['cert.p12'];
  if (!pem && !p12) {
    throw new CredentialsError('CertificateMissing', `Secret ${spec.secretRef.name} needs cert.p12, or tls.crt and tls.key`);
  }
  let expiresAt: Date | undefined;
  if (pem) {
    try {
      expiresAt = new Date(new X509Certificate(data['tls.crt']).validTo);
      createPrivateKey(data['tls.key']);
    } catch {
      throw new CredentialsError('CertificateUnreadable', `tls.crt or tls.key in Secret ${spec.secretRef.name} is not readable PEM`);
    }
  } else {
    expiresAt = p12Expiry(p12!, data['passphrase']?.toString('utf8'), spec.secretRef.name);
  }
  if (expiresAt && expiresAt.getTime() < Date.now()) {
    throw new CredentialsError('CertificateExpired', `the push certificate expired on ${expiresAt.toISOString()}`);
  }
  return {
    kind: 'certificate',
    material: pem ?? p12!,
    passphrase: data['passphrase']?.toString('utf8'),
    expiresAt,
  };
}

/**
 * Opens a .p12 the way the sender's TLS connection will (OpenSSL through node:tls), so a wrong
 * passphrase or a cipher this build cannot read is reported now, and reads the certificate's expiry.
 */
function p12Expiry(p12: Buffer, passphrase: string | undefined, secretName: string): Date | undefined {
  let context;
  try {
    context = createSecureContext({ pfx: p12, passphrase });
  } catch (error) {
    const text = String((error as Error).message);
    if (/mac verify|password|decrypt/i.test(text)) {
      throw new CredentialsError('CertificatePassphraseWrong', `cert.p12 in Secret ${secretName} cannot be opened with the passphrase given (the Secret's passphrase entry)`);
    }
    if (/unsupported|RC2|legacy/i.test(text)) {
      throw new CredentialsError('CertificateCipherUnsupported', `cert.p12 in Secret ${secretName} uses an old encryption (RC2) that OpenSSL 3 does not read; export it again with AES, or give tls.crt and tls.key`);
    }
    throw new CredentialsError('CertificateUnreadable', `cert.p12 in Secret ${secretName} is not a readable PKCS#12 file`);
  }
  // SecureContext.context.getCertificate() is Node's native accessor (not in the typings): the
  // leaf certificate as DER. Without it the expiry stays unknown rather than failing the app.
  const native = (context as unknown as { context?: { getCertificate?: () => Buffer | null } }).context;
  const der = native?.getCertificate?.();
  if (!der) return undefined;
  return new Date(new X509Certificate(der).validTo);
}
