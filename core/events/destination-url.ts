// Where a destination may point (docs/events.md "Destinations"): https, or plain http to a host
// the operator lists (HERALD_EVENT_HTTP_HOSTS: a cluster-local receiver, a test's 127.0.0.1); never
// a link-local or cloud metadata address (SSRF: a destination is written by an app team, and a
// POST to 169.254.169.254 from inside the cluster could read the node's cloud credentials).
// Checked when the App is applied (the URL, an address written in it) and again before each
// request on the addresses its name resolves to.
import { isIP } from 'node:net';

/** Names of metadata services that do not resolve to a link-local address everywhere. */
const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata.goog', 'metadata']);

/** Addresses no destination may reach: link-local (IPv4 169.254/16, IPv6 fe80::/10), metadata
 *  services, and "this host" (0.0.0.0, ::: a connect to it reaches the sender's own loopback).
 *  An IPv4 address wrapped in IPv6 (mapped ::ffff:0:0/96, NAT64 64:ff9b::/96) is judged as itself. */
export function isForbiddenAddress(address: string): boolean {
  const ip = address.toLowerCase().replace(/^\[|\]$/g, '');
  const v4 = isIP(ip) === 4 ? ip : wrappedIpv4(ip);
  if (v4 !== undefined) {
    return v4.startsWith('169.254.') || v4 === '100.100.100.200' || v4 === '0.0.0.0'; // link-local; Alibaba's metadata; this host
  }
  if (isIP(ip) === 6) {
    const full = expandIpv6(ip);
    // link-local; AWS's and GCP's IPv6 metadata; the unspecified address
    return /^fe[89ab][0-9a-f]:/.test(full) || full === expandIpv6('fd00:ec2::254') || full === expandIpv6('fd20:ce::254') || full === expandIpv6('::');
  }
  return false;
}

/** Loopback (127/8, ::1, and those wrapped in IPv6): the sender pod itself (blind SSRF into its own ports). */
export function isLoopbackAddress(address: string): boolean {
  const ip = address.toLowerCase().replace(/^\[|\]$/g, '');
  const v4 = isIP(ip) === 4 ? ip : wrappedIpv4(ip);
  if (v4 !== undefined) return v4.startsWith('127.');
  return isIP(ip) === 6 && expandIpv6(ip) === expandIpv6('::1');
}

/** An IPv6 address as eight 4-digit groups (`fd20:ce::254` → `fd20:00ce:0000:…:0254`). */
function expandIpv6(ip: string): string {
  let text = ip;
  const last = text.slice(text.lastIndexOf(':') + 1);
  if (isIP(last) === 4) {
    const [a, b, c, d] = last.split('.').map(Number);
    text = `${text.slice(0, text.length - last.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.map((g) => g.padStart(4, '0')).join(':');
}

/** The IPv4 address inside an IPv4-mapped (::ffff:a.b.c.d) or NAT64 (64:ff9b::a.b.c.d) IPv6 one, in either spelling. */
function wrappedIpv4(ip: string): string | undefined {
  if (isIP(ip) !== 6) return undefined;
  const groups = expandIpv6(ip).split(':');
  const prefix = groups.slice(0, 6).join(':');
  if (prefix !== '0000:0000:0000:0000:0000:ffff' && prefix !== '0064:ff9b:0000:0000:0000:0000') return undefined;
  const [hi, lo] = [parseInt(groups[6], 16), parseInt(groups[7], 16)];
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
  // A trailing dot is the same name, fully qualified (`metadata.google.internal.`).
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (url.protocol === 'http:') {
    if (!httpHosts.includes(host)) return `url ${raw} is plain http: use https, or ask the operator to list ${host} in HERALD_EVENT_HTTP_HOSTS`;
  } else if (url.protocol !== 'https:') {
    return `url ${raw} must be https`;
  }
  if (url.username || url.password) return `url ${url.protocol}//…@${url.host} carries credentials: sign with the secret instead`;
  if (isForbiddenAddress(host) || METADATA_NAMES.has(host)) return `url ${url.protocol}//${url.host} points at a link-local or metadata address`;
  // Loopback reaches the sender pod itself: only a host the operator lists (a test's 127.0.0.1).
  if ((isLoopbackAddress(host) || host === 'localhost') && !httpHosts.includes(host)) return `url ${url.protocol}//${url.host} points at a loopback address: ask the operator to list ${host} in HERALD_EVENT_HTTP_HOSTS`;
  return undefined;
}
