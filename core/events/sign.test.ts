// The Standard Webhooks signature as the `standardwebhooks` library makes and checks it, and the
// Retry-After forms a receiver may send.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { signatureHeaders } from './sign.js';
import { parseRetryAfter } from './post.js';

describe('events: signing and Retry-After', () => {
  it("signs exactly as the standardwebhooks library, which verifies it", () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const body = JSON.stringify([{ event: { kind: 'message.push.sent' } }]);
    const now = Math.floor(Date.now() / 1000);
    const headers = signatureHeaders(secret, 'msg_abc', now, body);
    const wh = new Webhook(secret);
    expect(headers['webhook-signature']).to.equal(wh.sign('msg_abc', new Date(now * 1000), body));
    expect(wh.verify(body, headers)).to.deep.equal(JSON.parse(body));
    expect(() => wh.verify(body.replace('sent', 'failed'), headers)).to.throw();
    expect(() => new Webhook(`whsec_${randomBytes(32).toString('base64')}`).verify(body, headers)).to.throw();
  });

  it('reads Retry-After as seconds or an HTTP date, else nothing', () => {
    expect(parseRetryAfter('0')).to.equal(0);
    expect(parseRetryAfter('120')).to.equal(120_000);
    expect(parseRetryAfter(new Date(1_000_000 + 30_000).toUTCString(), 1_000_000)).to.equal(30_000);
    expect(parseRetryAfter(new Date(0).toUTCString(), 1_000_000)).to.equal(0); // a date past: no wait
    expect(parseRetryAfter('soon')).to.equal(undefined);
    expect(parseRetryAfter(undefined)).to.equal(undefined);
  });
});
