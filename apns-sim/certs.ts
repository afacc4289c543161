// A throw-away PKI for the simulator: a CA, a server certificate for localhost / 127.0.0.1 and,
// for certificate-auth tests, client certificates carrying Apple's push-environment OIDs.
//
// Why the openssl CLI and not node-forge: node:crypto cannot issue X.509 certificates, node-forge
// is only a transitive dependency of @parse/node-apn (we would be relying on someone else's
// dependency), and it cannot produce EC certificates. openssl is present on every machine that
// runs this (Debian base image) and is what an operator would use to inspect the files.
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile, access } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

async function openssl(args: string[], cwd: string): Promise<void> {
  try {
    await run('openssl', args, { cwd });
  } catch (err) {
    const e = err as Error & { stderr?: string };
    throw new Error(`openssl ${args[0]} failed: ${e.stderr ?? e.message}`, { cause: err });
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

export interface CertificateAuthority {
  caFile: string;
  caKeyFile: string;
}

export interface ServerCertificate extends CertificateAuthority {
  certFile: string;
  keyFile: string;
}

const DAYS = '825';

/** Writes (or reuses, when both files exist) a CA named `<name>-ca.pem` / `<name>-ca.key` in dir. */
export async function ensureCa(relativeDir: string, name = 'apns-sim'): Promise<CertificateAuthority> {
  // openssl runs with the folder as its working directory, so every path handed to it is absolute.
  const dir = resolve(relativeDir);
  await mkdir(dir, { recursive: true });
  const caFile = join(dir, `${name}-ca.pem`);
  const caKeyFile = join(dir, `${name}-ca.key`);
  if (!((await exists(caFile)) && (await exists(caKeyFile)))) {
    await openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', caKeyFile], dir);
    await openssl(
      ['req', '-x509', '-new', '-key', caKeyFile, '-sha256', '-days', DAYS, '-subj', `/CN=${name} throw-away CA`,
        '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
        '-out', caFile],
      dir,
    );
  }
  return { caFile, caKeyFile };
}

async function issue(
  dir: string,
  ca: CertificateAuthority,
  base: string,
  subject: string,
  extensions: string,
  keyArgs: (out: string) => string[],
): Promise<{ certFile: string; keyFile: string }> {
  const keyFile = join(dir, `${base}.key`);
  const csrFile = join(dir, `${base}.csr`);
  const certFile = join(dir, `${base}.pem`);
  const extFile = join(dir, `${base}.ext`);
  await openssl(keyArgs(keyFile), dir);
  await openssl(['req', '-new', '-key', keyFile, '-subj', subject, '-out', csrFile], dir);
  await writeFile(extFile, extensions);
  await openssl(
    ['x509', '-req', '-in', csrFile, '-CA', ca.caFile, '-CAkey', ca.caKeyFile, '-CAcreateserial',
      '-days', DAYS, '-sha256', '-extfile', extFile, '-out', certFile],
    dir,
  );
  return { certFile, keyFile };
}

/**
 * CA + server certificate in dir; reused when already there. SANs localhost, 127.0.0.1, ::1, and
 * *.herald.test: a name the egress tests' proxy resolves and Herald cannot, so a delivery made
 * proves it came through the proxy (test/support/connect-proxy.ts; .test is never a real domain).
 */
export async function ensureServerCertificate(relativeDir: string): Promise<ServerCertificate> {
  const dir = resolve(relativeDir);
  const ca = await ensureCa(dir);
  const certFile = join(dir, 'apns-sim-server.pem');
  const keyFile = join(dir, 'apns-sim-server.key');
  if ((await exists(certFile)) && (await exists(keyFile))) return { ...ca, certFile, keyFile };
  await issue(
    dir, ca, 'apns-sim-server', '/CN=localhost',
    'subjectAltName=DNS:localhost,DNS:*.herald.test,IP:127.0.0.1,IP:0:0:0:0:0:0:0:1\nextendedKeyUsage=serverAuth\n',
    (out) => ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', out],
  );
  return { ...ca, certFile, keyFile };
}

export interface ClientCertificate {
  certFile: string;
  keyFile: string;
  cert: string;
  key: string;
}

/**
 * A client certificate like Apple's "Apple Push Services" ones: RSA 2048 with both environment
 * OIDs (development 1.2.840.113635.100.6.3.1, production .2), UID = the topic. RSA because
 * @parse/node-apn validates certificates with node-forge, which reads RSA only.
 */
export async function createClientCertificate(
  dir: string,
  ca: CertificateAuthority,
  name: string,
  topic = 'com.example.app',
): Promise<ClientCertificate> {
  const { certFile, keyFile } = await issue(
    resolve(dir), ca, name, `/UID=${topic}/CN=Apple Push Services: ${topic}`,
    'extendedKeyUsage=clientAuth\n1.2.840.113635.100.6.3.1=ASN1:NULL\n1.2.840.113635.100.6.3.2=ASN1:NULL\n',
    (out) => ['genrsa', '-out', out, '2048'],
  );
  return { certFile, keyFile, cert: await readFile(certFile, 'utf8'), key: await readFile(keyFile, 'utf8') };
}
