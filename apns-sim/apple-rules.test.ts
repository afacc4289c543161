import { expect } from 'chai';
import { checkPush } from './apple-rules.js';

const TOPIC = 'com.example.app';
const body = (payload: unknown) => Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload));
const alert = { aps: { alert: { body: 'hi' }, sound: 'default' } };
const silent = { aps: { 'content-available': 1 }, custom: { i: '1' } };

describe("simulator: Apple's rules per push type and header", () => {
  const accepted: Array<[string, { pushType?: string; priority?: string; topic?: string }, unknown]> = [
    ['an alert', { pushType: 'alert', topic: TOPIC }, alert],
    ['an alert without push type (Apple assumes alert)', { topic: TOPIC }, alert],
    ['an alert at priority 1, 5 or 10', { pushType: 'alert', priority: '1', topic: TOPIC }, alert],
    ['a background push at priority 5', { pushType: 'background', priority: '5', topic: TOPIC }, silent],
    ['a background push without priority', { pushType: 'background', topic: TOPIC }, silent],
    ['a voip push on the .voip topic', { pushType: 'voip', topic: `${TOPIC}.voip` }, alert],
    ['every interruption level and a relevance score', { topic: TOPIC }, { aps: { alert: 'x', 'interruption-level': 'time-sensitive', 'relevance-score': 0.5 } }],
    ["a critical alert's sound dictionary", { topic: TOPIC }, { aps: { alert: 'x', sound: { critical: 1, name: 'a.caf', volume: 1 } } }],
  ];
  for (const [what, headers, payload] of accepted) {
    it(`accepts ${what}`, () => expect(checkPush(headers, body(payload))).to.equal(undefined));
  }

  const refused: Array<[string, { pushType?: string; priority?: string; topic?: string; expiration?: string }, unknown, string]> = [
    ['a background push at priority 10', { pushType: 'background', priority: '10', topic: TOPIC }, silent, 'BadPriority'],
    ['a background push with an alert', { pushType: 'background', priority: '5', topic: TOPIC }, { aps: { 'content-available': 1, alert: 'x' } }, 'InvalidPushType'],
    ['a background push with a sound', { pushType: 'background', topic: TOPIC }, { aps: { 'content-available': 1, sound: 'default' } }, 'InvalidPushType'],
    ['a background push with a badge', { pushType: 'background', topic: TOPIC }, { aps: { 'content-available': 1, badge: 1 } }, 'InvalidPushType'],
    ['a background push without content-available', { pushType: 'background', topic: TOPIC }, { aps: {} }, 'InvalidPushType'],
    ['a voip push on the app topic', { pushType: 'voip', topic: TOPIC }, alert, 'BadTopic'],
    ['an alert on a .voip topic', { pushType: 'alert', topic: `${TOPIC}.voip` }, alert, 'BadTopic'],
    ['a live activity on the app topic', { pushType: 'liveactivity', topic: TOPIC }, alert, 'BadTopic'],
    ['an unknown interruption level', { topic: TOPIC }, { aps: { alert: 'x', 'interruption-level': 'time_sensitive' } }, 'BadPayload'],
    ['a relevance score above 1', { topic: TOPIC }, { aps: { alert: 'x', 'relevance-score': 1.5 } }, 'BadPayload'],
    ['a payload that is not JSON', { topic: TOPIC }, '{"aps":', 'BadPayload'],
    ['a payload without aps', { topic: TOPIC }, { custom: {} }, 'BadPayload'],
  ];
  const LA = { pushType: 'liveactivity', topic: `${TOPIC}.push-type.liveactivity` };
  const update = { timestamp: 1_700_000_000, event: 'update', 'content-state': { score: '1-0' } };
  const laAccepted: Array<[string, Record<string, string>, Record<string, unknown>]> = [
    ['an update at priority 10', { ...LA, priority: '10' }, update],
    ['an update at priority 5 with an alert, a stale date and a relevance score', { ...LA, priority: '5' }, { ...update, 'stale-date': 1_700_003_600, 'relevance-score': 0.5, alert: { title: 'Goal', body: '1-0', sound: 'goal.caf' } }],
    ['an end with a dismissal date', LA, { ...update, event: 'end', 'dismissal-date': 1_700_000_600 }],
    ['an end without content-state', LA, { timestamp: 1_700_000_000, event: 'end' }],
    ['a start with its attributes', LA, { ...update, event: 'start', 'attributes-type': 'MatchAttributes', attributes: { home: 'A' }, alert: { title: 'Kick-off', body: 'A v B' } }],
    ['a start naming its broadcast channel (iOS 18)', LA, { ...update, event: 'start', 'attributes-type': 'MatchAttributes', attributes: {}, 'input-push-channel': 'dHN0LXNyY2gtY2hubA==' }],
  ];
  for (const [what, headers, aps] of laAccepted) {
    it(`accepts a live activity: ${what}`, () => expect(checkPush(headers, body({ aps }))).to.equal(undefined));
  }
  refused.push(
    ['a live activity at priority 1', { ...LA, priority: '1' }, { aps: update }, 'BadPriority'],
    ['a live activity without timestamp', LA, { aps: { event: 'update', 'content-state': {} } }, 'BadPayload'],
    ['a live activity with a timestamp in milliseconds as a fraction', LA, { aps: { ...update, timestamp: 1.5 } }, 'BadPayload'],
    ['a live activity with an unknown event', LA, { aps: { ...update, event: 'pause' } }, 'BadPayload'],
    ['a live activity update without content-state', LA, { aps: { timestamp: 1, event: 'update' } }, 'BadPayload'],
    ['a live activity update with a dismissal date', LA, { aps: { ...update, 'dismissal-date': 2 } }, 'BadPayload'],
    ['a live activity start without attributes-type', LA, { aps: { ...update, event: 'start', attributes: {} } }, 'BadPayload'],
    ['a live activity update with attributes', LA, { aps: { ...update, 'attributes-type': 'T', attributes: {} } }, 'BadPayload'],
    ['a live activity with an alert push\'s keys', LA, { aps: { ...update, badge: 1 } }, 'BadPayload'],
    ['a live activity alert with a subtitle', LA, { aps: { ...update, alert: { title: 'x', subtitle: 'y', body: 'z' } } }, 'BadPayload'],
    ['a live activity update naming a channel (only a start subscribes)', LA, { aps: { ...update, 'input-push-channel': 'dHN0LXNyY2gtY2hubA==' } }, 'BadPayload'],
    ['a live activity start with an empty channel', LA, { aps: { ...update, event: 'start', 'attributes-type': 'T', attributes: {}, 'input-push-channel': '' } }, 'BadPayload'],
    ['a live activity start with a channel that is not text', LA, { aps: { ...update, event: 'start', 'attributes-type': 'T', attributes: {}, 'input-push-channel': 7 } }, 'BadPayload'],
    ['an alert on the live activity topic', { pushType: 'alert', topic: `${TOPIC}.push-type.liveactivity` }, alert, 'BadTopic'],
  );
  // Issue 29: every push type with a token of its own, on its topic, at Apple's priorities.
  const data = { aps: {}, custom: { i: '1' } };
  const changed = { aps: { 'content-changed': true } };
  const typed: Array<[string, { pushType: string; priority?: string; topic: string; expiration?: string }, unknown]> = [
    ['a location push at priority 10', { pushType: 'location', priority: '10', topic: `${TOPIC}.location-query` }, data],
    ['a location push at priority 5', { pushType: 'location', priority: '5', topic: `${TOPIC}.location-query` }, data],
    ['a complication push', { pushType: 'complication', topic: `${TOPIC}.complication` }, data],
    ['a push-to-talk push at 10, expiring at once', { pushType: 'pushtotalk', priority: '10', expiration: '0', topic: `${TOPIC}.voip-ptt` }, data],
    ['a widgets push', { pushType: 'widgets', topic: `${TOPIC}.push-type.widgets` }, changed],
    ['a controls push', { pushType: 'controls', priority: '10', expiration: '0', topic: `${TOPIC}.push-type.controls` }, changed],
  ];
  for (const [what, headers, payload] of typed) {
    it(`accepts ${what}`, () => expect(checkPush(headers, body(payload))).to.equal(undefined));
  }
  refused.push(
    ['a location push at priority 1', { pushType: 'location', priority: '1', topic: `${TOPIC}.location-query` }, data, 'BadPriority'],
    ['a location push on the app topic', { pushType: 'location', topic: TOPIC }, data, 'BadTopic'],
    ['a push-to-talk push at priority 5', { pushType: 'pushtotalk', priority: '5', expiration: '0', topic: `${TOPIC}.voip-ptt` }, data, 'BadPriority'],
    ['a push-to-talk push that may be stored', { pushType: 'pushtotalk', priority: '10', expiration: '1700000000', topic: `${TOPIC}.voip-ptt` }, data, 'BadExpirationDate'],
    ['a push-to-talk push without apns-expiration', { pushType: 'pushtotalk', topic: `${TOPIC}.voip-ptt` }, data, 'BadExpirationDate'],
    ['a push-to-talk push on the .voip topic', { pushType: 'pushtotalk', expiration: '0', topic: `${TOPIC}.voip` }, data, 'BadTopic'],
    ['a complication push on the app topic', { pushType: 'complication', topic: TOPIC }, data, 'BadTopic'],
    ['a widgets push on the controls topic', { pushType: 'widgets', topic: `${TOPIC}.push-type.controls` }, changed, 'BadTopic'],
    ['a widgets push without content-changed', { pushType: 'widgets', topic: `${TOPIC}.push-type.widgets` }, data, 'BadPayload'],
    ['a controls push with an alert beside content-changed', { pushType: 'controls', topic: `${TOPIC}.push-type.controls` }, { aps: { 'content-changed': true, alert: 'x' } }, 'BadPayload'],
    ['an alert on the widgets topic', { pushType: 'alert', topic: `${TOPIC}.push-type.widgets` }, alert, 'BadTopic'],
  );
  for (const [what, headers, payload, reason] of refused) {
    it(`answers 400 ${reason} to ${what}`, () => expect(checkPush(headers, body(payload))).to.deep.equal({ status: 400, reason }));
  }
});
