// The connect-time check of a destination's name (checked-lookup.ts), with the resolver given
// the answers a rebinding name could give: link-local and metadata refused always, loopback
// refused unless the URL's host is in HERALD_EVENT_HTTP_HOSTS, anything else answered.
import { expect } from 'chai';
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { checkedLookup, type ResolveAll } from './checked-lookup.js';

/** A resolver that answers each name from the table; an unknown name is ENOTFOUND. */
const resolverOf = (answers: Record<string, string[]>): ResolveAll => (hostname, _options, callback) => {
  const found = answers[hostname];
  if (!found) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
  callback(null, found.map((address) => ({ address, family: isIP(address) })));
};

const ANSWERS: Record<string, string[]> = {
  'rebound.example': ['169.254.169.254'],
  'v6-metadata.example': ['fd00:ec2::254'],
  'alibaba.example': ['100.100.100.200'],
  'self.example': ['127.0.0.1'],
  'self6.example': ['::1'],
  'mapped.example': ['::ffff:127.0.0.2'],
  'receiver.local': ['127.0.0.1'],
  'Receiver.Local.': ['127.0.0.1'],
  'listed-but-link-local.local': ['169.254.0.9'],
  'hooks.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'mixed.example': ['127.0.0.1', '93.184.216.34'],
};
const LISTED = ['receiver.local', 'listed-but-link-local.local'];

/** All the addresses the lookup answers for the name, or the error's code and message. */
function lookupAll(hostname: string): Promise<{ addresses?: string[]; code?: string; message?: string }> {
  const lookup = checkedLookup(LISTED, resolverOf(ANSWERS));
  return new Promise((resolve) => {
    lookup(hostname, { all: true }, (err, addresses) => {
      if (err) return resolve({ code: (err as NodeJS.ErrnoException).code, message: err.message });
      resolve({ addresses: (addresses as unknown as LookupAddress[]).map((a) => a.address) });
    });
  });
}

describe('events: the connect-time lookup of a destination', () => {
  const refused: Array<[string, RegExp]> = [
    ['rebound.example', /resolves to a link-local or metadata address/],
    ['v6-metadata.example', /resolves to a link-local or metadata address/],
    ['alibaba.example', /resolves to a link-local or metadata address/],
    ['self.example', /resolves to a loopback address: ask the operator to list self\.example in HERALD_EVENT_HTTP_HOSTS/],
    ['self6.example', /resolves to a loopback address/],
    ['mapped.example', /resolves to a loopback address/],
    // Listing a host lets it reach loopback, nothing more.
    ['listed-but-link-local.local', /resolves to a link-local or metadata address/],
  ];
  for (const [name, message] of refused) {
    it(`${name} (${ANSWERS[name].join(', ')}): refused`, async () => {
      const answer = await lookupAll(name);
      expect(answer.code).to.equal('EFORBIDDEN');
      expect(answer.message).to.match(message);
    });
  }

  const answered: Array<[string, string[]]> = [
    ['receiver.local', ['127.0.0.1']], // listed by the operator: loopback allowed
    ['Receiver.Local.', ['127.0.0.1']], // the same host, as a URL may spell it
    ['hooks.example.com', ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946']],
    ['mixed.example', ['93.184.216.34']], // the loopback answer dropped, the public one kept
  ];
  for (const [name, addresses] of answered) {
    it(`${name}: answered with ${addresses.join(', ')}`, async () => {
      expect(await lookupAll(name)).to.deep.equal({ addresses });
    });
  }

  it('one address asked (all false): the first allowed one, with its family', async () => {
    const lookup = checkedLookup(LISTED, resolverOf(ANSWERS));
    const one = await new Promise<[string, number]>((resolve, reject) => lookup('mixed.example', {}, (err, address, family) => (err ? reject(err) : resolve([address as string, family as number]))));
    expect(one).to.deep.equal(['93.184.216.34', 4]);
  });

  it("the resolver's own error goes through unchanged", async () => {
    expect(await lookupAll('unknown.example')).to.deep.include({ code: 'ENOTFOUND' });
  });
});
