import { expect } from 'chai';
import type { Device } from '../core/delivery/chunks.js';
import { createSenderMetrics } from './metrics.js';
import type { Action } from './outcomes.js';
import { countDeliveries, tally } from './tally.js';

const device = (entry: string, n = 0): Device => ({ entry, subscriptionId: `sub-${entry}-${n}`, token: `tok-${entry}-${n}`, language: null, environment: null });
const sent: Action = { kind: 'sent' };
const failed: Action = { kind: 'failed', reason: 'PayloadTooLarge' };
const stop: Action = { kind: 'stop', reason: 'InvalidProviderToken' };
const gone: Action = { kind: 'unsubscribe', reason: 'Unregistered', appleTimestampMs: 1_700_000_000_000 };

describe('tally: a chunk counted by audience entry', () => {
  it('a device per entry (segments, tags): each counted by its own action', () => {
    const devices = [device('1'), device('2'), device('3'), device('4')];
    expect(tally(4, devices, [sent, failed, stop, gone])).to.deep.equal({
      sent: 1,
      failed: 2,
      skipped: 0,
      leftOut: 1,
      unsubscribe: [{ subscriptionId: 'sub-4-0', token: 'tok-4-0', reason: 'Unregistered', appleTimestampMs: 1_700_000_000_000 }],
      sentTo: ['sub-1-0'],
      failedFor: [{ subscriptionId: 'sub-2-0', reason: 'PayloadTooLarge' }],
    });
  });

  it('an external id with several installs: sent when any was accepted, else failed when any was refused, else left out', () => {
    const devices = [device('a', 0), device('a', 1), device('b', 0), device('b', 1), device('c', 0), device('c', 1)];
    const outcome = tally(3, devices, [failed, sent, stop, failed, stop, stop]);
    expect(outcome).to.include({ sent: 1, failed: 1, leftOut: 1, skipped: 0 });
    // Each install's own outcome for its events: the entry's count takes the best, the events do not.
    expect(outcome.sentTo).to.deep.equal(['sub-a-1']);
    expect(outcome.failedFor).to.deep.equal([
      { subscriptionId: 'sub-a-0', reason: 'PayloadTooLarge' },
      { subscriptionId: 'sub-b-1', reason: 'PayloadTooLarge' },
    ]);
  });

  it("keeps each install's outcome by seq for the send's history: sent, failed with the reason, unsubscribed; none for a left-out one or a device without a seq", () => {
    const withSeq = (entry: string, seq: string): Device => ({ ...device(entry), seq });
    const devices = [withSeq('1', '11'), withSeq('2', '12'), withSeq('3', '13'), withSeq('4', '14'), device('5')];
    expect(tally(5, devices, [sent, failed, stop, gone, sent]).history).to.deep.equal({ sent: ['11'], failed: ['12', '14'], reasons: ['PayloadTooLarge', 'Unregistered'], unsubscribed: ['14'] });
    // A Live Activity's tokens carry no seq: no history is kept for them.
    expect(tally(2, [device('1'), device('2')], [sent, failed])).to.not.have.property('history');
  });

  it('counts the Android share of sent and failed by the platform of the install that decided the entry; none: no android key', () => {
    const on = (entry: string, n: number, platform: Device['platform']): Device => ({ ...device(entry, n), ...(platform ? { platform } : {}) });
    // 1 iOS sent, 2 Android sent, 1 Android failed, 1 iOS failed, 1 Android left out; an external id
    // with an iOS install failed and an Android one sent counts as sent on Android.
    const devices = [on('1', 0, 'ios'), on('2', 0, 'android'), on('3', 0, 'android'), on('4', 0, undefined), on('5', 0, 'android'), on('x', 0, 'ios'), on('x', 1, 'android')];
    const outcome = tally(6, devices, [sent, sent, failed, gone, stop, failed, sent]);
    expect(outcome).to.include({ sent: 3, failed: 2, leftOut: 1 });
    expect(outcome.android).to.deep.equal({ sent: 2, failed: 1 });
    expect(tally(2, [on('1', 0, 'ios'), on('2', 0, undefined)], [sent, failed])).to.not.have.property('android');
  });

  it('skips the planned entries with no device now, never fewer than none', () => {
    expect(tally(5, [device('1'), device('2')], [sent, sent])).to.include({ sent: 2, skipped: 3 });
    expect(tally(0, [device('1')], [sent])).to.include({ sent: 1, skipped: 0 });
    expect(tally(3, [], [])).to.deep.equal({ sent: 0, failed: 0, skipped: 3, leftOut: 0, unsubscribe: [], sentTo: [], failedFor: [] });
  });

  it('counts every device in the deliveries metric, with its outcome and reason', async () => {
    const metrics = createSenderMetrics();
    countDeliveries(metrics, [sent, failed, stop, gone, sent]);
    const values = (await metrics.deliveries.get()).values.map((v) => [v.labels.outcome, v.labels.reason, v.value]);
    expect(values).to.have.deep.members([
      ['sent', '', 2],
      ['failed', 'PayloadTooLarge', 1],
      ['left_out', 'InvalidProviderToken', 1],
      ['unsubscribed', 'Unregistered', 1],
    ]);
  });
});
