// The named sets: built-in segments (and their older names) and send sources (and OneSignal's kinds).
import { expect } from 'chai';
import { BUILT_IN_SEGMENT_LIST, BUILT_IN_SEGMENTS, EVERYONE, isBuiltInSegment, segmentNamed } from './built-in-segments.js';
import { isSendSource, SEND_KINDS, SEND_SOURCES, sourceOfKind } from './send-source.js';

describe('built-in segments', () => {
  it("are OneSignal's three, listed in that order in messages", () => {
    expect(BUILT_IN_SEGMENTS).to.deep.equal(['Subscribed Users', 'Active Users', 'Inactive Users']);
    expect(BUILT_IN_SEGMENT_LIST).to.equal('Subscribed Users, Active Users, Inactive Users');
    expect(EVERYONE).to.equal('Subscribed Users');
  });

  it('are told apart from custom names exactly (case and spaces count)', () => {
    for (const name of BUILT_IN_SEGMENTS) expect(isBuiltInSegment(name), name).to.equal(true);
    for (const name of ['subscribed users', 'Subscribed Users ', 'All', 'VIP', '', 'constructor']) expect(isBuiltInSegment(name), name).to.equal(false);
  });

  it('reads the older names as Subscribed Users and leaves every other name as given', () => {
    expect(segmentNamed('All')).to.equal('Subscribed Users');
    expect(segmentNamed('All Subscribers')).to.equal('Subscribed Users');
    for (const name of ['all', 'VIP', 'Active Users', 'constructor', '__proto__', 'toString']) expect(segmentNamed(name), name).to.equal(name);
  });
});

describe('send sources', () => {
  it('are api, kubernetes and dashboard', () => {
    expect(SEND_SOURCES).to.deep.equal(['api', 'kubernetes', 'dashboard']);
    for (const s of SEND_SOURCES) expect(isSendSource(s), s).to.equal(true);
    for (const s of ['API', 'cluster', '', 'constructor']) expect(isSendSource(s), s).to.equal(false);
  });

  it("map OneSignal's kinds 0, 1 and 3, and no other value", () => {
    expect(SEND_KINDS).to.deep.equal([0, 1, 3]);
    expect([sourceOfKind('0'), sourceOfKind('1'), sourceOfKind('3')]).to.deep.equal(['dashboard', 'api', 'kubernetes']);
    for (const k of ['2', '4', '', '01', 'constructor', '__proto__']) expect(sourceOfKind(k), k).to.equal(undefined);
  });
});
