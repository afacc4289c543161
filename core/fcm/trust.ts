// The TLS trust of FCM and the token endpoint: the public roots plus HERALD_FCM_CA_FILE's CA, as one
// secure context per CA, made once per process. Node parses every root certificate each time a
// context is made from a `ca` list (about 150 ms of CPU on the bench machine, measured in a sender's
// profile: docs/benchmarks.md "Android"), which each connection and token request would otherwise pay.
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';

const contexts = new Map<string, SecureContext>();

/** The context trusting the public roots and `ca`; undefined without `ca` (Node's default store, already cached). */
export function trustedContext(ca: string | undefined): SecureContext | undefined {
  if (!ca) return undefined;
  let context = contexts.get(ca);
  if (!context) {
    context = createSecureContext({ ca: [...rootCertificates, ca] });
    contexts.set(ca, context);
  }
  return context;
}
