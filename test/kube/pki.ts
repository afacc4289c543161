// A throw-away PKI for one test control plane: a CA, the apiserver's serving certificate, the
// service-account signing key pair and an admin client certificate.
//
// Why the openssl CLI: node:crypto cannot issue X.509 certificates, and openssl is on every
// machine that runs this tier (it is also what a person uses to inspect the files).
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface ControlPlanePki {
  caFile: string;
  caKeyFile: string;
  servingCertFile: string;
  servingKeyFile: string;
  serviceAccountKeyFile: string;
  serviceAccountPubFile: string;
  adminCertFile: string;
  adminKeyFile: string;
}

async function openssl(args: string[], cwd: string): Promise<void> {
  try {
    await run('openssl', args, { cwd });
  } catch (err) {
    const e = err as Error & { stderr?: string };
    throw new Error(`openssl ${args.join(' ')} failed: ${e.stderr ?? e.message}`, { cause: err });
  }
}

// Issues a certificate signed by the CA. `ext` is an openssl extension section body.
async function issue(dir: string, name: string, subject: string, ext: string): Promise<void> {
  await openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', `${name}.key`], dir);
  await openssl(['req', '-new', '-key', `${name}.key`, '-subj', subject, '-out', `${name}.csr`], dir);
  await writeFile(join(dir, `${name}.ext`), ext);
  await openssl(
    ['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial',
      '-days', '2', '-sha256', '-extfile', `${name}.ext`, '-out', `${name}.crt`],
    dir,
  );
}

export async function createPki(dir: string): Promise<ControlPlanePki> {
  await openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', 'ca.key'], dir);
  await openssl(
    ['req', '-x509', '-new', '-key', 'ca.key', '-subj', '/CN=herald-test-ca', '-days', '2', '-sha256', '-out', 'ca.crt',
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'],
    dir,
  );
  await issue(dir, 'apiserver', '/CN=kube-apiserver', [
    'basicConstraints=CA:FALSE',
    'keyUsage=critical,digitalSignature,keyEncipherment',
    'extendedKeyUsage=serverAuth',
    'subjectAltName=IP:127.0.0.1,DNS:localhost',
    '',
  ].join('\n'));
  // O=system:masters puts the admin in the group RBAC lets do anything, with no bindings needed.
  await issue(dir, 'admin', '/O=system:masters/CN=admin', [
    'basicConstraints=CA:FALSE',
    'keyUsage=critical,digitalSignature,keyEncipherment',
    'extendedKeyUsage=clientAuth',
    '',
  ].join('\n'));
  // The apiserver signs service-account tokens with this key and verifies them with its public half.
  await openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', 'sa.key'], dir);
  await openssl(['pkey', '-in', 'sa.key', '-pubout', '-out', 'sa.pub'], dir);
  return {
    caFile: join(dir, 'ca.crt'),
    caKeyFile: join(dir, 'ca.key'),
    servingCertFile: join(dir, 'apiserver.crt'),
    servingKeyFile: join(dir, 'apiserver.key'),
    serviceAccountKeyFile: join(dir, 'sa.key'),
    serviceAccountPubFile: join(dir, 'sa.pub'),
    adminCertFile: join(dir, 'admin.crt'),
    adminKeyFile: join(dir, 'admin.key'),
  };
}
