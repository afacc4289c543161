// Walks every row of the transitions table: each case names the state, the event and the facts,
// and the status and message it must give; the last test checks that every row was reached by a
// case, so a row added without a case fails here.
import { expect } from 'chai';
import { nextStep, TRANSITIONS, type Facts, type From, type SendEvent } from './transitions.js';
import type { SendStatus } from './states.js';

interface Case {
  name: string;
  from: From;
  event: SendEvent;
  facts: Facts;
  to: SendStatus;
  /** The message, or a pattern of it; null: the message does not change. */
  message: string | RegExp | null;
}

const creds = { hasCredentials: true };
const CASES: Case[] = [
  // accept
  { name: 'no push key or certificate', from: 'new', event: 'accept', facts: { hasCredentials: false, audience: 5, broadcast: true }, to: 'draft', message: "Saved as a draft and not sent: the app has no push key or certificate for Apple's gateway." },
  { name: 'send_after', from: 'new', event: 'accept', facts: { ...creds, scheduledFor: '2030-01-01T00:00:00.000Z', audience: 1 }, to: 'scheduled', message: 'Scheduled for 2030-01-01T00:00:00.000Z, to 1 device as of now.' },
  { name: 'empty audience', from: 'new', event: 'accept', facts: { ...creds, audience: 0, broadcast: true }, to: 'approved', message: 'This notification reached no one: the audience is empty.' },
  { name: 'segment or tag', from: 'new', event: 'accept', facts: { ...creds, audience: 1500, broadcast: true }, to: 'queued', message: 'Queued for 1,500 devices; delivery goes on in the background.' },
  { name: 'list of ids', from: 'new', event: 'accept', facts: { ...creds, audience: 3 }, to: 'sending', message: 'Sending to 3 devices.' },
  // fire (a scheduled send's time came)
  { name: 'firing while paused', from: 'scheduled', event: 'fire', facts: { ...creds, halted: 'paused', audience: 10, broadcast: true }, to: 'draft', message: 'Not sent: delivery is paused until the invoice for the app is paid.' },
  { name: 'firing for a deleted or disabled app', from: 'scheduled', event: 'fire', facts: { ...creds, halted: 'disabled', audience: 10, broadcast: true }, to: 'draft', message: 'Not sent: the app was deleted or disabled.' },
  { name: 'firing without credentials', from: 'scheduled', event: 'fire', facts: { hasCredentials: false, audience: 10 }, to: 'draft', message: /no push key or certificate/ },
  { name: 'firing on an empty audience', from: 'scheduled', event: 'fire', facts: { ...creds, audience: 0, broadcast: true }, to: 'approved', message: /reached no one/ },
  { name: 'firing a last-active send', from: 'scheduled', event: 'fire', facts: { ...creds, audience: 1000, lastActive: true, broadcast: true }, to: 'scheduled', message: 'Going out to 1,000 devices, each at the time of day it was last active (within 24 hours).' },
  { name: 'firing a timezone send', from: 'scheduled', event: 'fire', facts: { ...creds, audience: 1000, timezone: '09:00', broadcast: true }, to: 'scheduled', message: "Going out to 1,000 devices at 09:00 in each device's time zone." },
  { name: 'firing a segment send', from: 'scheduled', event: 'fire', facts: { ...creds, audience: 15, broadcast: true }, to: 'queued', message: 'Queued for 15 devices; delivery goes on in the background.' },
  { name: 'firing a list send', from: 'scheduled', event: 'fire', facts: { ...creds, audience: 2 }, to: 'sending', message: 'Sending to 2 devices.' },
  { name: 'firing failed', from: 'scheduled', event: 'fire_failed', facts: { detail: 'segment VIP is not defined for app shop' }, to: 'draft', message: 'Not sent at its scheduled time: segment VIP is not defined for app shop.' },
  // planning
  { name: 'planning failed', from: 'queued', event: 'plan_failed', facts: { detail: 'segment VIP is not defined for app shop' }, to: 'draft', message: 'Not sent: it could not be planned (segment VIP is not defined for app shop).' },
  // delivery begins
  { name: 'first chunk claimed', from: 'queued', event: 'chunk_started', facts: {}, to: 'sending', message: null },
  // the end
  { name: 'paused after some reached', from: 'sending', event: 'finished', facts: { stopped: 'paused', sent: 1000, leftOut: 5000 }, to: 'approved', message: 'Sent to 1,000 devices before delivery paused: the app has an invoice past its due date. 5,000 devices were not sent and will not be.' },
  { name: 'paused with no device reached', from: 'queued', event: 'finished', facts: { stopped: 'paused', sent: 0, leftOut: 6000 }, to: 'draft', message: 'Delivery paused: the app has an invoice past its due date. 6,000 devices were not sent and will not be.' },
  { name: 'app disabled after some reached', from: 'sending', event: 'finished', facts: { stopped: 'disabled', sent: 500, leftOut: 1000 }, to: 'approved', message: 'Sent to 500 devices, then stopped: the app was deleted or disabled. 1,000 devices were not sent and will not be.' },
  { name: 'app disabled before any reached', from: 'queued', event: 'finished', facts: { stopped: 'disabled', sent: 0, leftOut: 40 }, to: 'draft', message: 'Not sent: the app was deleted or disabled. 40 devices were not sent and will not be.' },
  { name: 'canceled after some reached', from: 'sending', event: 'finished', facts: { stopped: 'canceled', sent: 500, leftOut: 1500 }, to: 'approved', message: 'Sent to 500 devices before it was canceled; 1,500 devices were not sent and will not be.' },
  { name: 'canceled before any reached', from: 'scheduled', event: 'finished', facts: { stopped: 'canceled', sent: 0, leftOut: 20 }, to: 'draft', message: 'Canceled before any device was reached; 20 devices were not sent and will not be.' },
  { name: 'credentials refused after some reached', from: 'sending', event: 'finished', facts: { stopped: 'credentials', sent: 500, detail: 'InvalidProviderToken' }, to: 'approved', message: "Sent to 500 devices, then stopped: Apple's gateway refused the app's push key or certificate (InvalidProviderToken). Fix the app's credentials and send again." },
  { name: 'credentials refused before any reached', from: 'queued', event: 'finished', facts: { stopped: 'credentials', sent: 0, detail: 'BadCertificate' }, to: 'draft', message: /^Saved as a draft and not sent: Apple's gateway refused .*\(BadCertificate\)/ },
  { name: 'every device handled, some accepted', from: 'sending', event: 'finished', facts: { sent: 1500, failed: 3, skipped: 2 }, to: 'approved', message: 'Sent to 1,500 devices; 3 failed, 2 skipped.' },
  { name: 'a timezone send after its last zone', from: 'scheduled', event: 'finished', facts: { sent: 1, failed: 0, skipped: 0 }, to: 'approved', message: 'Sent to 1 device; 0 failed, 0 skipped.' },
  { name: 'every device handled, none accepted', from: 'sending', event: 'finished', facts: { sent: 0, failed: 30, skipped: 0 }, to: 'draft', message: 'Not sent: the gateway accepted none of the devices (30 failed, 0 skipped).' },
];

/** The index of the row a case takes (the same search nextStep does). */
const rowOf = (c: Case) => TRANSITIONS.findIndex((t) => t.event === c.event && t.from.includes(c.from) && t.guard(c.facts));

describe('send transitions table', () => {
  for (const c of CASES) {
    it(`${c.from} --${c.event}--> ${c.to}: ${c.name}`, () => {
      const step = nextStep(c.from, c.event, c.facts);
      expect(step, 'a row applies').to.not.equal(undefined);
      expect(step!.to).to.equal(c.to);
      expect(step!.final).to.equal(c.to === 'approved' || c.to === 'draft');
      if (c.message === null) expect(step!.message).to.equal(undefined);
      else if (typeof c.message === 'string') expect(step!.message).to.equal(c.message);
      else expect(step!.message).to.match(c.message);
    });
  }

  it('every row is reached by a case', () => {
    const reached = new Set(CASES.map(rowOf));
    const missed = TRANSITIONS.map((t, i) => ({ i, t })).filter(({ i }) => !reached.has(i));
    expect(missed.map(({ i, t }) => `${i}: ${t.from.join('|')} ${t.event} → ${t.to}`)).to.deep.equal([]);
  });

  it('nothing moves a final send, and a timezone send stays scheduled when a chunk starts', () => {
    for (const from of ['approved', 'draft'] as const) {
      for (const event of ['accept', 'fire', 'fire_failed', 'plan_failed', 'chunk_started', 'finished'] as const) expect(nextStep(from, event, { sent: 1 })).to.equal(undefined);
    }
    expect(nextStep('scheduled', 'chunk_started', {})).to.equal(undefined);
    expect(nextStep('sending', 'chunk_started', {})).to.equal(undefined);
  });
});
