// TLS options for a connection to APNs: the extra CA (on top of the public roots, so one
// setting serves both the simulator and Apple) and, for certificate auth, the client
// certificate (pfx, or cert + key) presented in the handshake.
import { rootCertificates, type ConnectionOptions } from 'node:tls';
import type { ApnsTarget } from './types.js';

export function tlsOptions(target: ApnsTarget): ConnectionOptions {
  const options: ConnectionOptions = {};
  if (target.ca) options.ca = [...rootCertificates, target.ca];
  const c = target.credentials;
  if (c.kind === 'certificate') {
    if (c.pfx) {
      options.pfx = c.pfx;
      options.passphrase = c.passphrase;
    } else if (c.cert && c.key) {
      options.cert = c.cert;
      options.key = c.key;
      options.passphrase = c.passphrase;
    } else {
      throw new TypeError('APNs certificate credentials need pfx, or cert and key');
    }
  }
  return options;
}
