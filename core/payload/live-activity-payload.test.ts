import { expect } from 'chai';
import { buildApnsPayloadForDevice, largestPayloadBytes } from './apns-payload.js';
import { apnsHeaderValues } from './apns-headers.js';
import { topicOf } from './push-types.js';
import type { SendRequest } from '../send-model/request.js';

const base = (la: Partial<NonNullable<SendRequest['liveActivity']>>, extra: Partial<SendRequest> = {}): SendRequest => ({
  appId: 'a',
  target: { kind: 'activity', activityId: 'match-7' },
  contents: {},
  defaultLanguage: 'en',
  apns: {},
  liveActivity: { event: 'update', activityId: 'match-7', contentState: { score: '1-0' }, timestamp: 1_700_000_000, ...la },
  ...extra,
});
const aps = (req: SendRequest, language?: string) => JSON.parse(buildApnsPayloadForDevice(req, language)) as Record<string, unknown>;

describe('Live Activity payload and headers', () => {
  it('an update without an alert: timestamp, event and content-state only, nothing outside aps', () => {
    expect(aps(base({}))).to.deep.equal({ aps: { timestamp: 1_700_000_000, event: 'update', 'content-state': { score: '1-0' } } });
  });

  it("an end with its dates and relevance, and an alert in the device's language with the sound inside it", () => {
    const req = base({ event: 'end', staleDate: 1_700_000_600, dismissalDate: 1_700_000_900 }, {
      contents: { en: 'Full time', de: 'Abpfiff' },
      headings: { en: 'A 2-1 B' },
      apns: { sound: 'whistle.caf', relevanceScore: 0.5 },
    });
    expect(aps(req, 'de-AT')).to.deep.equal({
      aps: {
        timestamp: 1_700_000_000, event: 'end', 'content-state': { score: '1-0' }, 'stale-date': 1_700_000_600, 'dismissal-date': 1_700_000_900,
        'relevance-score': 0.5, alert: { title: 'A 2-1 B', body: 'Abpfiff', sound: 'whistle.caf' },
      },
    });
  });

  it("a start names its attributes type and attributes, with the activity id where OneSignal's SDK reads it", () => {
    const req = base({ event: 'start', activityType: 'MatchAttributes', attributes: { home: 'A' } }, { contents: { en: 'Kick-off' } });
    expect(aps(req)).to.deep.equal({
      aps: {
        timestamp: 1_700_000_000, event: 'start', 'content-state': { score: '1-0' }, 'attributes-type': 'MatchAttributes',
        attributes: { home: 'A', onesignal: { activityId: 'match-7' } }, alert: { body: 'Kick-off' },
      },
    });
  });

  it('a start with a broadcast channel names it in aps.input-push-channel (iOS 18 subscribes the new activity); an update never does', () => {
    const req = base({ event: 'start', activityType: 'MatchAttributes', attributes: {}, channelId: 'dHN0LXNyY2gtY2hubA==' });
    expect(aps(req)).to.have.nested.property('aps.input-push-channel', 'dHN0LXNyY2gtY2hubA==');
    expect(aps(base({ channelId: 'dHN0LXNyY2gtY2hubA==' }))).to.not.have.nested.property('aps.input-push-channel');
  });

  it('measures the payload it sends', () => {
    const req = base({}, { contents: { en: 'x'.repeat(100) } });
    expect(largestPayloadBytes(req)).to.equal(Buffer.byteLength(buildApnsPayloadForDevice(req, 'en')));
  });

  it('goes as push type liveactivity on the .push-type.liveactivity topic, at priority 10 unless told 5', () => {
    expect(apnsHeaderValues(base({}), 1000)).to.deep.include({ pushType: 'liveactivity', priority: 10 });
    expect(apnsHeaderValues(base({}, { apns: { priority: 5 } }), 1000)).to.deep.include({ pushType: 'liveactivity', priority: 5 });
    expect(topicOf('com.example.app', 'liveactivity')).to.equal('com.example.app.push-type.liveactivity');
    expect(topicOf('com.example.app', 'alert')).to.equal('com.example.app');
    expect(topicOf('com.example.app', undefined)).to.equal('com.example.app');
  });
});
