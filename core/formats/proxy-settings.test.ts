// HTTPS_PROXY and NO_PROXY as curl and Go read them, with no implicit exception (not even loopback).
import { expect } from 'chai';
import { bypassesProxy, parseNoProxy, parseProxyUrl, proxyUrlForLog, ProxySettingError } from './proxy-settings.js';

describe('egress proxy settings: HTTPS_PROXY', () => {
  it('reads host and port, and the credentials only as a Basic header', () => {
    const p = parseProxyUrl('http://herald:s%40cret@proxy.internal:3128');
    expect(p).to.deep.equal({ host: 'proxy.internal', port: 3128, display: 'proxy.internal:3128', authorization: `Basic ${Buffer.from('herald:s@cret').toString('base64')}` });
  });

  it('takes a URL without a scheme (as curl does), port 80 when none, an IPv6 host in brackets', () => {
    expect(parseProxyUrl('proxy:8080')).to.deep.equal({ host: 'proxy', port: 8080, display: 'proxy:8080' });
    expect(parseProxyUrl('http://proxy')).to.deep.equal({ host: 'proxy', port: 80, display: 'proxy:80' });
    expect(parseProxyUrl('http://[fd00::1]:3128')).to.deep.equal({ host: 'fd00::1', port: 3128, display: '[fd00::1]:3128' });
  });

  it('refuses what is not an http proxy URL, naming the variable and never the credentials', () => {
    for (const raw of ['https://user:pw@proxy:443', 'socks5://user:pw@proxy:1080', 'http://user:pw@:3128', 'http://user:pw@proxy:99999']) {
      expect(() => parseProxyUrl(raw, 'https_proxy'), raw).to.throw(ProxySettingError, /^https_proxy /).that.satisfies((e: Error) => !e.message.includes('pw'));
    }
  });

  it('logs the proxy with its credentials masked, written with a scheme or without', () => {
    expect(proxyUrlForLog('http://herald:secret@proxy:3128')).to.equal('http://***@proxy:3128');
    expect(proxyUrlForLog('herald:secret@proxy:3128')).to.equal('http://***@proxy:3128');
    expect(proxyUrlForLog('proxy:3128')).to.equal('http://proxy:3128');
  });
});

describe('egress proxy settings: NO_PROXY', () => {
  const cases: Array<[string, string, number, boolean]> = [
    // no list: everything through the proxy, loopback and private addresses included
    ['', 'localhost', 443, false],
    ['', '127.0.0.1', 443, false],
    ['', '::1', 443, false],
    ['', '10.1.2.3', 443, false],
    ['*', 'api.push.apple.com', 443, true],
    // a name: itself and below
    ['example.com', 'example.com', 443, true],
    ['example.com', 'hooks.example.com', 443, true],
    ['example.com', 'notexample.com', 443, false],
    ['Example.COM.', 'hooks.example.com', 443, true],
    ['example.com', 'HOOKS.EXAMPLE.COM.', 443, true],
    // a leading dot or *.: below only
    ['.example.com', 'example.com', 443, false],
    ['.example.com', 'a.b.example.com', 443, true],
    ['*.example.com', 'example.com', 443, false],
    ['*.example.com', 'hooks.example.com', 443, true],
    // a port narrows it
    ['example.com:8443', 'example.com', 443, false],
    ['example.com:8443', 'example.com', 8443, true],
    // addresses and ranges match addresses written as such, never a name
    ['10.0.0.0/8', '10.1.2.3', 443, true],
    ['10.0.0.0/8', '11.1.2.3', 443, false],
    ['10.0.0.0/8', 'ten.internal', 443, false],
    ['127.0.0.1', '127.0.0.1', 443, true],
    ['127.0.0.1:2197', '127.0.0.1', 443, false],
    ['[::1]', '::1', 443, true],
    ['::1', '[::1]', 443, true],
    ['fd00::/8', 'fd12::5', 443, true],
    ['[::1]:2197', '::1', 2197, true],
    // several, with spaces
    [' .svc , 10.0.0.0/8 ,, api.internal ', 'herald-apns-sim.herald.svc', 2197, true],
    [' .svc , 10.0.0.0/8 ,, api.internal ', 'api.push.apple.com', 443, false],
  ];
  for (const [list, host, port, direct] of cases) {
    it(`NO_PROXY=${JSON.stringify(list)}: ${host}:${port} ${direct ? 'direct' : 'through the proxy'}`, () => {
      expect(bypassesProxy(parseNoProxy(list), host, port)).to.equal(direct);
    });
  }

  it('refuses an entry that is no host, domain, address or range, naming the variable', () => {
    for (const raw of ['10.0.0.0/33', 'fd00::/129', 'exa mple.com', 'http://example.com', '10.0.0.0/x']) {
      expect(() => parseNoProxy(raw, 'no_proxy'), raw).to.throw(ProxySettingError, /^no_proxy: /);
    }
  });
});
