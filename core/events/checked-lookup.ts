// The name lookup of a destination's connection (post.ts): only addresses a destination may reach
// are answered, so a name whose answer changed after the App was applied (DNS rebinding, a record
// pointed at the node) cannot take a request past the URL's check (destination-url.ts):
//
//   link-local, metadata, "this host"   refused, always
//   loopback (the sender pod itself)    refused, unless the URL's host is in HERALD_EVENT_HTTP_HOSTS
//   anything else                       answered
//
// A name answering with both is answered with the allowed addresses only.
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isForbiddenAddress, isLoopbackAddress } from './destination-url.js';

/** Resolves a name to all its addresses (node:dns lookup with `all: true`; a test gives its own). */
export type ResolveAll = (hostname: string, options: LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

const systemResolver: ResolveAll = (hostname, options, callback) => dnsLookup(hostname, options, callback);

/** Why a destination at `host` may not connect to `address`, or undefined when it may. */
export function addressRefusal(host: string, address: string, httpHosts: readonly string[]): string | undefined {
  if (isForbiddenAddress(address)) return 'a link-local or metadata address';
  // The same rule as a loopback address written in the URL (destinationUrlProblem), by the URL's host.
  if (isLoopbackAddress(address) && !httpHosts.includes(normalHost(host))) return `a loopback address: ask the operator to list ${normalHost(host)} in HERALD_EVENT_HTTP_HOSTS`;
  return undefined;
}

/** A host as HERALD_EVENT_HTTP_HOSTS lists it: lower case, without brackets or a trailing dot. */
const normalHost = (host: string) => host.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');

/** A lookup for a destination's connection: answers only the addresses `addressRefusal` allows. */
export function checkedLookup(httpHosts: readonly string[], resolve: ResolveAll = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 4);
      const allowed = addresses.filter((a) => addressRefusal(hostname, a.address, httpHosts) === undefined);
      if (!allowed.length) {
        const why = addresses.length ? addressRefusal(hostname, addresses[0].address, httpHosts) : 'no address';
        return callback(Object.assign(new Error(`${hostname} resolves to ${why}`), { code: 'EFORBIDDEN' }), '', 4);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed);
      callback(null, allowed[0].address, allowed[0].family);
    });
  };
}
