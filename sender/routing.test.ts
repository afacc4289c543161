import { expect } from 'chai';
import type { AppRecord } from '../core/apps/app-store.js';
import type { Device } from '../core/delivery/chunks.js';
import { validate } from '../core/validation/helpers.test-support.js';
import type { ApnsClient } from '../core/apns/types.js';
import { CredentialsUnusableError, type ApnsClients } from '../core/apns/clients.js';
import { byPlatform, fcmMessages, routeMessages } from './routing.js';
import type { SendContext } from './send-cache.js';

const app = { id: 'app-1', environment: 'production' } as AppRecord;
const send = (): SendContext => ({ sendId: 9, request: validate(), app, payloads: new Map(), at: Date.now() });
const device = (n: number, environment: Device['environment'], language: string | null = null): Device => ({ entry: String(n), subscriptionId: `sub-${n}`, token: `tok-${n}`, language, environment });

/** One fake client per environment, and what it was asked for. */
function clients(fail?: Error): ApnsClients & { asked: unknown[][] } {
  const made = new Map<string, ApnsClient>();
  const asked: unknown[][] = [];
  return {
    asked,
    async get(forApp: AppRecord, version: number, environment: AppRecord['environment'] = forApp.environment) {
      asked.push([forApp.id, version, environment]);
      if (fail) throw fail;
      if (!made.has(environment)) made.set(environment, { environment } as unknown as ApnsClient);
      return made.get(environment)!;
    },
  } as unknown as ApnsClients & { asked: unknown[][] };
}

describe("routeMessages: each device to its own environment's gateway", () => {
  it('gives each message the client of its device environment, the App\'s own when the install names none, and asks once per environment', async () => {
    const c = clients();
    const messages = await routeMessages(c, send(), 7, [device(1, null), device(2, 'sandbox'), device(3, 'production'), device(4, 'sandbox')]);
    if (messages instanceof Error) throw messages;
    expect(messages.map((m) => [m.token, (m.client as unknown as { environment: string }).environment, m.offEnvironment])).to.deep.equal([
      ['tok-1', 'production', false],
      ['tok-2', 'sandbox', true],
      ['tok-3', 'production', false],
      ['tok-4', 'sandbox', true],
    ]);
    expect(c.asked).to.deep.equal([
      ['app-1', 7, 'production'],
      ['app-1', 7, 'sandbox'],
    ]);
  });

  it('builds one payload per language and shares it between devices', async () => {
    const s = send();
    const messages = await routeMessages(clients(), s, 0, [device(1, null, 'en'), device(2, null, 'en'), device(3, null, null)]);
    if (messages instanceof Error) throw messages;
    expect(messages[0].payload).to.equal(messages[1].payload);
    expect([...s.payloads.keys()].sort()).to.deep.equal(['', 'en']);
  });

  it('answers with the error when the app\'s credentials make no client (the send stops)', async () => {
    const refused = new CredentialsUnusableError('the app has no push key or certificate');
    expect(await routeMessages(clients(refused), send(), 0, [device(1, null)])).to.equal(refused);
  });

  it('lets any other failure through (a bug is not a refusal)', async () => {
    const error = await routeMessages(clients(new TypeError('bug')), send(), 0, [device(1, null)]).catch((e) => e);
    expect(error).to.be.instanceOf(TypeError);
  });

  it('asks for no client when the chunk has no device', async () => {
    const c = clients();
    expect(await routeMessages(c, send(), 0, [])).to.deep.equal([]);
    expect(c.asked).to.deep.equal([]);
  });
});

describe('byPlatform', () => {
  const d = (token: string, platform?: 'ios' | 'android') => ({ entry: token, subscriptionId: token, token, language: null, environment: null, ...(platform ? { platform } : {}) });
  const devices = [d('i1'), d('a1', 'android'), d('i2', 'ios'), d('a2', 'android')];
  const tokens = (r: { ios: Array<{ token: string }>; android: Array<{ token: string }> }) => [r.ios.map((x) => x.token), r.android.map((x) => x.token)];

  it('splits by subscriptions.platform (absent is iOS), keeping the chunk order; a platform the send leaves out gets none', () => {
    expect(tokens(byPlatform(devices))).to.deep.equal([['i1', 'i2'], ['a1', 'a2']]);
    expect(tokens(byPlatform(devices, ['ios', 'android']))).to.deep.equal([['i1', 'i2'], ['a1', 'a2']]);
    expect(tokens(byPlatform(devices, ['ios']))).to.deep.equal([['i1', 'i2'], []]);
    expect(tokens(byPlatform(devices, ['android']))).to.deep.equal([[], ['a1', 'a2']]);
  });
});

describe('fcmMessages', () => {
  it('one messages:send body per device: its token, its language, one message serialised per language', () => {
    const ctx: SendContext = { sendId: 9, request: validate({ contents: { en: 'Hello', fr: 'Bonjour' } }), app, payloads: new Map(), at: Date.now() };
    const bodies = fcmMessages(ctx, [device(1, null, 'fr'), device(2, null, 'en'), device(3, null, 'fr-CA')]).map((m) => ({ token: m.token, body: JSON.parse(m.body) }));
    expect(bodies.map((b) => [b.token, b.body.message.token, b.body.message.notification.body])).to.deep.equal([
      ['tok-1', 'tok-1', 'Bonjour'],
      ['tok-2', 'tok-2', 'Hello'],
      ['tok-3', 'tok-3', 'Bonjour'],
    ]);
    expect(JSON.parse(bodies[0].body.message.data.custom)).to.deep.equal({ i: '9' });
    expect([...ctx.payloads.keys()].filter((k) => k.startsWith('\0fcm:'))).to.have.length(3); // by device language, as APNs payloads are
  });
});
