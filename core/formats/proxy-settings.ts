// The egress proxy settings as every tool reads them (curl, Go's net/http, Python's requests):
// HTTPS_PROXY (`http://[user:pass@]host:port`) and NO_PROXY (a comma list). cli/ reads the
// variables (core/config.ts); this module turns their text into the proxy's address and the
// rule that exempts a host (docs/configuration.md "Egress proxy"; docs/decisions.md "Issue 37").
//
// NO_PROXY entries, as Go's golang.org/x/net/http/httpproxy reads them:
//
//   *                   every host goes direct
//   example.com         that name and every name under it (api.example.com)
//   .example.com        names under it only (not example.com itself); `*.example.com` the same
//   10.0.0.0/8, fd00::/8  an address written in the URL inside that range (names are not resolved)
//   10.1.2.3, [::1]     that address
//   any of them :port   only connections to that port
//
// Unlike Go, nothing is exempt unless listed: not localhost, not loopback, not a private range
// (Go sends loopback direct whatever the settings say). An egress proxy is often the only way
// out, and a silent exception is a connection nobody audits.
import { BlockList, isIP } from 'node:net';

/** Where the proxy is; its credentials only as the header value (never logged). */
export interface ProxyAddress {
  host: string;
  port: number;
  /** `Basic <base64(user:pass)>`, when the URL carries a user. */
  authorization?: string;
  /** host:port, safe to log. */
  display: string;
}

export interface NoProxy {
  /** `*`: nothing goes through the proxy. */
  all: boolean;
  names: Array<{ suffix: string; exact: boolean; port?: number }>;
  addresses: Array<{ list: BlockList; port?: number }>;
}

export class ProxySettingError extends Error {
  override name = 'ProxySettingError';
}

/** `http://[user:pass@]host[:port]` (the scheme may be left out, as curl allows) → the proxy's address. */
export function parseProxyUrl(raw: string, variable = 'HTTPS_PROXY'): ProxyAddress {
  const text = raw.trim();
  let url: URL;
  try {
    url = new URL(text.includes('://') ? text : `http://${text}`);
  } catch {
    throw new ProxySettingError(`${variable} is not a URL (http://[user:pass@]host:port)`);
  }
  // No credentials in the messages: the URL is never echoed.
  if (url.protocol !== 'http:') throw new ProxySettingError(`${variable} must be an http:// proxy URL (a CONNECT proxy; TLS to the proxy itself is not supported), got ${url.protocol}//`);
  if (!url.hostname) throw new ProxySettingError(`${variable} names no host`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port || 80);
  const display = `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
  if (!url.username && !url.password) return { host, port, display };
  const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  return { host, port, display, authorization: `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}` };
}

/** The proxy URL as it may be logged: its address, the credentials masked (even when written without a scheme). */
export function proxyUrlForLog(raw: string): string {
  const p = parseProxyUrl(raw);
  return `http://${p.authorization ? '***@' : ''}${p.display}`;
}

const lower = (host: string) => host.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');

/** One entry's host and port: `host`, `host:port`, `[v6]`, `[v6]:port`, a bare IPv6 address. */
function hostAndPort(entry: string): { host: string; port?: number } {
  const bracketed = /^\[([^\]]*)\](?::(\d{1,5}))?$/.exec(entry);
  if (bracketed) return { host: bracketed[1], port: bracketed[2] ? Number(bracketed[2]) : undefined };
  if (isIP(entry) === 6 || (entry.includes('/') && isIP(entry.slice(0, entry.indexOf('/'))) === 6)) return { host: entry };
  const colon = entry.lastIndexOf(':');
  if (colon > 0 && /^\d{1,5}$/.test(entry.slice(colon + 1))) return { host: entry.slice(0, colon), port: Number(entry.slice(colon + 1)) };
  return { host: entry };
}

/** NO_PROXY's text → its rules. An entry that is none of the forms above is a setting error. */
export function parseNoProxy(raw: string | undefined, variable = 'NO_PROXY'): NoProxy {
  const rules: NoProxy = { all: false, names: [], addresses: [] };
  for (const item of (raw ?? '').split(',')) {
    const entry = item.trim();
    if (!entry) continue;
    if (entry === '*') {
      rules.all = true;
      continue;
    }
    const { host, port } = hostAndPort(entry);
    const slash = host.indexOf('/');
    if (slash > 0) {
      const base = host.slice(0, slash);
      const bits = Number(host.slice(slash + 1));
      const family = isIP(base);
      if (!family || !/^\d{1,3}$/.test(host.slice(slash + 1)) || bits > (family === 4 ? 32 : 128)) throw new ProxySettingError(`${variable}: ${JSON.stringify(entry)} is not a CIDR range`);
      const list = new BlockList();
      list.addSubnet(base, bits, family === 4 ? 'ipv4' : 'ipv6');
      rules.addresses.push({ list, port });
    } else if (isIP(host)) {
      const list = new BlockList();
      list.addAddress(host, isIP(host) === 4 ? 'ipv4' : 'ipv6');
      rules.addresses.push({ list, port });
    } else {
      const name = lower(host.startsWith('*.') ? host.slice(1) : host);
      if (!/^\.?[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(name)) throw new ProxySettingError(`${variable}: ${JSON.stringify(entry)} is not a host name, domain, address or range`);
      rules.names.push(name.startsWith('.') ? { suffix: name, exact: false, port } : { suffix: name, exact: true, port });
    }
  }
  return rules;
}

/** Does NO_PROXY send a connection to host:port direct? */
export function bypassesProxy(rules: NoProxy, host: string, port: number): boolean {
  if (rules.all) return true;
  const h = lower(host);
  const family = isIP(h);
  if (family) return rules.addresses.some((a) => (a.port === undefined || a.port === port) && a.list.check(h, family === 4 ? 'ipv4' : 'ipv6'));
  return rules.names.some((n) => {
    if (n.port !== undefined && n.port !== port) return false;
    // `example.com`: itself and below; `.example.com`: below only.
    return n.exact ? h === n.suffix || h.endsWith(`.${n.suffix}`) : h.endsWith(n.suffix);
  });
}
