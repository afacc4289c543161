// The destination rules of spec.events (docs/events.md "Destinations"): names, URLs (https, plain
// http only to HERALD_EVENT_HTTP_HOSTS, never link-local or metadata), kinds, and the signing
// secret (Standard Webhooks: whsec_ then the base64 of 24–64 bytes), whose value no message shows.
import { expect } from 'chai';
import { checkEventsSpec, DestinationError, signingSecretOf, type DestinationSpec } from './destinations.js';
import { destinationUrlProblem, isForbiddenAddress } from './destination-url.js';
import { loadConfig } from '../config.js';

const ok = { name: 'backend', url: 'https://hooks.example.com/herald', secretRef: { name: 's', key: 'k' } };
const refused = (events: unknown, hosts: string[] = []) => {
  try {
    checkEventsSpec(events, hosts);
  } catch (error) {
    expect(error).to.be.instanceOf(DestinationError);
    return (error as Error).message;
  }
  throw new Error('accepted');
};
const whsec = (bytes: number) => `whsec_${Buffer.alloc(bytes, 7).toString('base64')}`;
const secretOf = (value: string | undefined, d: DestinationSpec = ok) => signingSecretOf(d, new Map(value === undefined ? [] : [['s', { k: Buffer.from(value) }]]));

describe('event destinations: the spec', () => {
  it('takes a destination as the issue shows it, every kind when kinds is omitted, and no events at all', () => {
    expect(checkEventsSpec({ destinations: [ok] }, [])).to.deep.equal([{ ...ok, kinds: undefined }]);
    expect(checkEventsSpec({ destinations: [{ ...ok, kinds: ['message.push.failed', 'subscription.push.unsubscribed'] }] }, [])[0].kinds).to.deep.equal(['message.push.failed', 'subscription.push.unsubscribed']);
    expect(checkEventsSpec(undefined, [])).to.deep.equal([]);
    expect(checkEventsSpec({}, [])).to.deep.equal([]);
  });

  it('stream: true or false, and only that (a stream alone, without destinations, is fine)', () => {
    expect(checkEventsSpec({ stream: true }, [])).to.deep.equal([]);
    expect(checkEventsSpec({ stream: false, destinations: [ok] }, [])).to.have.length(1);
    for (const bad of ['true', 1, null, {}]) expect(refused({ stream: bad })).to.equal('spec.events.stream must be true or false');
  });

  it('names: 1 to 63 of a DNS label, unique in the App', () => {
    expect(checkEventsSpec({ destinations: [{ ...ok, name: 'a' }] }, [])).to.have.length(1);
    expect(checkEventsSpec({ destinations: [{ ...ok, name: 'a'.repeat(63) }] }, [])).to.have.length(1);
    expect(refused({ destinations: [{ ...ok, name: 'a'.repeat(64) }] })).to.contain('spec.events.destinations[0].name must be 1-63');
    expect(refused({ destinations: [{ ...ok, name: '' }] })).to.contain('.name must be');
    expect(refused({ destinations: [{ ...ok, name: 'Backend' }] })).to.contain('.name must be');
    expect(refused({ destinations: [ok, { ...ok, url: 'https://other.example.com/' }] })).to.equal('spec.events.destinations[1].name backend is used twice: destination names are unique in an App');
  });

  it('at most 10 destinations', () => {
    const many = (n: number) => ({ destinations: Array.from({ length: n }, (_, i) => ({ ...ok, name: `d${i}` })) });
    expect(checkEventsSpec(many(10), [])).to.have.length(10);
    expect(refused(many(11))).to.equal('spec.events.destinations has 11 entries: at most 10');
  });

  it('kinds: known ones, at least one', () => {
    expect(refused({ destinations: [{ ...ok, kinds: ['message.push.opened'] }] })).to.contain('"message.push.opened" is not one of message.push.sent,');
    expect(refused({ destinations: [{ ...ok, kinds: [] }] })).to.contain('kinds must list at least one kind');
  });

  it('secretRef needs name and key', () => {
    expect(refused({ destinations: [{ ...ok, secretRef: { name: 's' } }] })).to.contain('secretRef needs name and key');
    expect(refused({ destinations: [{ name: 'x', url: ok.url }] })).to.contain('secretRef needs name and key');
  });

  it('refuses plain http unless the operator lists the host, and says how', () => {
    expect(refused({ destinations: [{ ...ok, url: 'http://receiver.events.svc:8080/in' }] })).to.equal(
      'spec.events.destinations[0]: url http://receiver.events.svc:8080/in is plain http: use https, or ask the operator to list receiver.events.svc in HERALD_EVENT_HTTP_HOSTS',
    );
    expect(checkEventsSpec({ destinations: [{ ...ok, url: 'http://receiver.events.svc:8080/in' }] }, ['receiver.events.svc'])).to.have.length(1);
    expect(checkEventsSpec({ destinations: [{ ...ok, url: 'http://127.0.0.1:9/' }] }, loadConfig({ HERALD_EVENT_HTTP_HOSTS: ' 127.0.0.1 , Receiver.events.svc' }).eventHttpHosts)).to.have.length(1);
    expect(destinationUrlProblem('ftp://x.example.com/', [])).to.equal('url ftp://x.example.com/ must be https');
    expect(destinationUrlProblem('not a url', [])).to.contain('is not a URL');
    expect(destinationUrlProblem('https://user:pw@x.example.com/', [])).to.equal('url https://…@x.example.com carries credentials: sign with the secret instead');
  });

  it('refuses link-local and metadata addresses, even over https or allowed http', () => {
    for (const url of ['https://169.254.169.254/latest/meta-data/', 'http://169.254.0.1/', 'https://[fe80::1]/', 'https://metadata.google.internal/', 'https://100.100.100.200/', 'https://[fd00:ec2::254]/', 'https://[::ffff:169.254.169.254]/']) {
      expect(destinationUrlProblem(url, ['169.254.0.1']), url).to.match(/points at a link-local or metadata address$/);
    }
    expect(isForbiddenAddress('169.253.255.255')).to.equal(false);
    expect(isForbiddenAddress('169.255.0.0')).to.equal(false);
    expect(isForbiddenAddress('fec0::1')).to.equal(false); // just past fe80::/10
    expect(isForbiddenAddress('febf::1')).to.equal(true); // the last of fe80::/10
    expect(isForbiddenAddress('10.0.0.1')).to.equal(false);
  });

  // Issue 28 review: every spelling of a forbidden address, and its nearest allowed neighbour.
  const table: Array<[string, string | undefined]> = [
    ['https://[fd20:ce::254]/', 'metadata'], // GCP's IPv6 metadata
    ['https://[fd20:00ce:0:0:0:0:0:254]/', 'metadata'],
    ['https://[fd20:ce::255]/', undefined],
    ['https://[fd00:ec2::254]/', 'metadata'],
    ['https://metadata.google.internal./', 'metadata'], // trailing dot: the same name
    ['https://METADATA.goog./x', 'metadata'],
    ['https://metadata.google.internal.example.com/', undefined],
    ['https://0.0.0.0/', 'metadata'],
    ['https://[::]/', 'metadata'],
    ['https://0.0.0.1/', undefined],
    ['https://[64:ff9b::169.254.169.254]/', 'metadata'], // NAT64 wrapping link-local
    ['https://[64:ff9b::a9fe:a9fe]/', 'metadata'],
    ['https://[64:ff9b::a9fd:ffff]/', undefined], // 169.253.255.255
    ['https://[64:ff9b::0.0.0.0]/', 'metadata'],
    ['https://[64:ff9b::7f00:1]/', 'loopback'], // NAT64 wrapping 127.0.0.1
    ['https://[::ffff:169.254.169.254]/', 'metadata'],
    ['https://[::ffff:0.0.0.0]/', 'metadata'],
    ['https://127.0.0.1/', 'loopback'],
    ['https://127.255.255.254:8443/', 'loopback'],
    ['https://128.0.0.1/', undefined],
    ['https://126.255.255.255/', undefined],
    ['https://[::1]/', 'loopback'],
    ['https://[::2]/', undefined],
    ['https://[::ffff:127.0.0.1]/', 'loopback'],
    ['https://localhost/', 'loopback'],
    ['https://localhost./', 'loopback'],
    ['https://receiver.example.com/', undefined],
  ];
  for (const [url, refusal] of table) {
    it(`${url}: ${refusal ? `refused (${refusal})` : 'allowed'}`, () => {
      const problem = destinationUrlProblem(url, []);
      if (refusal === 'metadata') expect(problem).to.match(/points at a link-local or metadata address$/);
      else if (refusal === 'loopback') expect(problem).to.match(/points at a loopback address: ask the operator to list .* in HERALD_EVENT_HTTP_HOSTS$/);
      else expect(problem).to.equal(undefined);
    });
  }

  it('loopback is allowed when the operator lists the host (a test receiver), over http and https', () => {
    expect(destinationUrlProblem('http://127.0.0.1:9/', ['127.0.0.1'])).to.equal(undefined);
    expect(destinationUrlProblem('https://127.0.0.1:9/', ['127.0.0.1'])).to.equal(undefined);
    expect(destinationUrlProblem('https://[::1]:9/', ['::1'])).to.equal(undefined);
    expect(destinationUrlProblem('https://127.0.0.2:9/', ['127.0.0.1'])).to.match(/loopback/);
  });
});

describe('event destinations: the signing secret', () => {
  it('takes whsec_ with 24 to 64 bytes', () => {
    expect(secretOf(whsec(24))).to.equal(whsec(24));
    expect(secretOf(whsec(64))).to.equal(whsec(64));
  });

  it('refuses 23 and 65 bytes, no prefix, not base64, and never shows the value', () => {
    for (const value of [whsec(23), whsec(65), Buffer.alloc(32, 7).toString('base64'), 'whsec_not*base64*at*all*xxxxxxxxxxxxxxxxxxxxxxx']) {
      try {
        secretOf(value);
        throw new Error(`accepted ${value}`);
      } catch (error) {
        expect(error).to.be.instanceOf(DestinationError);
        expect((error as DestinationError).reason).to.equal('SecretInvalid');
        expect((error as Error).message).to.equal('destination backend: k in Secret s must be a Standard Webhooks secret, whsec_ then the base64 of 24-64 bytes');
      }
    }
  });

  it('names a missing Secret or entry', () => {
    expect(() => secretOf(undefined)).to.throw('destination backend: Secret s was not found');
    expect(() => signingSecretOf(ok, new Map([['s', { other: Buffer.from('x') }]]))).to.throw('destination backend: Secret s has no k entry');
  });
});
