// Where a destination may point (docs/events.md "Destinations"): https, or plain http to a host
// the operator lists (HERALD_EVENT_HTTP_HOSTS: a cluster-local receiver, a test's 127.0.0.1); never
// a link-local or cloud metadata address (SSRF: a destination is written by an app team, and a
// POST to 169.254.169.254 from inside the cluster could read the node's cloud credentials).
// Checked when the App is applied (the URL, an address written in it) and again before each
// request on the addresses its name resolves to.
import { isIP } from 'node:net';

/** Names of metadata services that do not resolve to a link-local address everywhere. */
const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata.goog', 'metadata']);

/** Addresses no destination may reach: link-local (IPv4 169.254/16, IPv6 fe80::/10) and metadata services. */
export function isForbiddenAddress(address: string): boolean {
  const ip = address.toLowerCase().replace(/^\[|\]$/g, '');
  const mapped = ipv4Mapped(ip) ?? ip;
  if (isIP(mapped) === 4) {
    return mapped.startsWith('169.254.') || mapped === '100.100.100.200'; // link-local; Alibaba's metadata
  }
  if (isIP(mapped) === 6) {
    return /^fe[89ab][0-9a-f]:/.test(mapped) || mapped === 'fd00:ec2::254'; // link-local; AWS's IPv6 metadata
  }
  return false;
}

/** The IPv4 address of an IPv4-mapped IPv6 one (`::ffff:169.254.169.254`, as URL writes it `::ffff:a9fe:a9fe`). */
function ipv4Mapped(ip: string): string | undefined {
  if (!ip.startsWith('::ffff:')) return undefined;
  const rest = ip.slice(7);
  if (isIP(rest) === 4) return rest;
  const m = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(rest);
  if (!m) return undefined;
  const [hi, lo] = [parseInt(m[1], 16), parseInt(m[2], 16)];
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** Why the URL may not be a destination, or undefined when it may. */
export function destinationUrlProblem(raw: string, httpHosts: readonly string[]): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `url ${JSON.stringify(raw)} is not a URL`;
  }
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (url.protocol === 'http:') {
    if (!httpHosts.includes(host)) return `url ${raw} is plain http: use https, or ask the operator to list ${host} in HERALD_EVENT_HTTP_HOSTS`;
  } else if (url.protocol !== 'https:') {
    return `url ${raw} must be https`;
  }
  if (url.username || url.password) return `url ${url.protocol}//…@${url.host} carries credentials: sign with the secret instead`;
  if (isForbiddenAddress(host) || METADATA_NAMES.has(host)) return `url ${url.protocol}//${url.host} points at a link-local or metadata address`;
  return undefined;
}
