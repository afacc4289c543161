// The fast lane's budget (issue 29 point 4, docs/benchmarks.md "Live Activity broadcast channels"): the
// statements and bus round trips an updateLiveActivity makes before its broadcast request leaves
// for Apple (the gateway client's send is watched in this process, so each statement is known to
// have started before or after it). What is not needed for the request to Apple goes after it or
// beside it: this test fails when a statement is added in front.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import * as OneSignal from '@onesignal/node-onesignal';
import { useTestEnv } from '../env/index.js';
import { startApnsSim, generateApnsKeyPair, type ApnsSim } from '../../apns-sim/index.js';
import { createKey } from '../../core/apps/keys.js';
import { silentLogger } from '../../core/log.js';
import { createApiMetrics } from '../../api/shared/metrics.js';
import { LiveActivityBroadcast } from '../../api/live-activities/broadcast.js';
import type { Pool } from '../../core/store/db.js';
import type { Bus } from '../../core/bus/jetstream.js';
import { ApnsClients } from '../../core/apns/clients.js';
import type { ApnsClient } from '../../core/apns/types.js';
import { startTestApi, type TestApi } from '../support/api-server.js';
import { createTestApp, token } from './fixtures.js';

interface Trip {
  what: string;
  /** Answered before the request to Apple left: the request waited for it (a publish started before it but answered after did not). */
  beforeApple: boolean;
}

describe("delivery: a Live Activity update's round trips before its broadcast reaches Apple", function () {
  this.timeout(60_000);
  const env = useTestEnv();
  let sim: ApnsSim;
  let api: TestApi;
  let broadcast: LiveActivityBroadcast;
  const trips: Trip[] = [];
  let channelId = '';
  let sent = false;
  /** Notes a round trip as it starts; whether it ended before the request to Apple, once it does. */
  const note = <T>(what: string, result?: T): T | undefined => {
    const trip = { what, beforeApple: false };
    trips.push(trip);
    if (result instanceof Promise) void result.finally(() => (trip.beforeApple = !sent)).catch(() => undefined);
    else trip.beforeApple = !sent;
    return result;
  };
  const originalGet = ApnsClients.prototype.get;
  const afterApple = async () => {
    for (let waited = 0; !sent && waited < 5000; waited += 10) await new Promise((r) => setTimeout(r, 10));
  };

  /** The pool and the bus as the api sees them, noting each statement and publish as it starts. */
  function watched(): { pool: Pool; bus: Bus } {
    const pool = new Proxy(env.pool, {
      get(target, prop) {
        if (prop === 'query') return (q: string | { name?: string; text: string }, ...rest: unknown[]) => {
          const what = `pg: ${(typeof q === 'string' ? q : (q.name ?? q.text)).replace(/\s+/g, ' ').slice(0, 60)}`;
          const result = (target.query as (...a: unknown[]) => unknown)(q, ...rest);
          // The send's record is answered only once the request to Apple has left (or 5 s later): a
          // path that waited for it would reach Apple after it, whichever statement is quicker.
          return note(what, what === 'pg: herald-record-sends' && result instanceof Promise ? result.then(async (r) => (await afterApple(), r)) : result);
        };
        if (prop === 'connect') return () => note('pg: connect (a transaction)', target.connect());
        const value = Reflect.get(target, prop);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as Pool;
    const nc = new Proxy(env.bus.nc, {
      get(target, prop) {
        if (prop === 'publish') return (...a: unknown[]) => note('nats: publish (wake)', (target.publish as (...x: unknown[]) => void)(...a));
        const value = Reflect.get(target, prop);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const bus = new Proxy(env.bus, {
      get(target, prop) {
        if (prop === 'publish') return (...a: Parameters<Bus['publish']>) => note('nats: publish (outbox, acknowledged)', target.publish(...a));
        if (prop === 'nc') return nc;
        const value = Reflect.get(target, prop);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as Bus;
    return { pool, bus };
  }

  before(async () => {
    // The broadcast's gateway client, watched: the moment its request leaves.
    ApnsClients.prototype.get = async function (this: ApnsClients, ...args: Parameters<ApnsClients['get']>): Promise<ApnsClient> {
      const client = await originalGet.apply(this, args);
      return { ...client, send: (messages) => ((sent = true), note('apple: the broadcast request'), client.send(messages)) } as ApnsClient;
    };
    const keyPair = generateApnsKeyPair();
    const TEAM = 'TEAM000291';
    sim = await startApnsSim({ keys: [{ keyId: keyPair.keyId, teamId: TEAM, publicKey: keyPair.publicKeyPem }] });
    const app = await createTestApp(env.pool, 'laroundtrips', { key: keyPair, teamId: TEAM });
    await env.pool.query('UPDATE apps SET live_activity_broadcast = true WHERE id = $1', [app.app.id]);
    const { pool, bus } = watched();
    const metrics = createApiMetrics();
    broadcast = new LiveActivityBroadcast(pool, { url: sim.url, ca: await readFile(sim.caFile, 'utf8'), broadcastUrl: sim.managementUrl }, silentLogger(), metrics.registry);
    api = await startTestApi(env, { pool, bus, metrics, liveActivityBroadcast: broadcast });
    const install = await api.request('POST', `/api/v1/apps/${app.app.id}/subscriptions`, { body: { token: token('d1', 1), language: 'en' } });
    const channel = await api.request('GET', `/api/v1/apps/${app.app.id}/live_activities/match-rt/channel?subscription_id=${install.body.id}`);
    channelId = channel.body.channel_id;
    // A device before iOS 18 on the same activity: the update is a send of one token too.
    await api.request('POST', `/api/v1/apps/${app.app.id}/live_activities/match-rt/token`, { body: { subscription_id: install.body.id, push_token: token('e1', 1), device_type: 0 } });
    const { key } = await createKey(env.pool, app.app.id);
    const client = new OneSignal.DefaultApi(OneSignal.createConfiguration({ restApiKey: key, baseServer: new OneSignal.ServerConfiguration(`${api.url}/api/v1`, {}) }));
    const update = (n: number) => client.updateLiveActivity(app.app.id, 'match-rt', Object.assign(new OneSignal.UpdateLiveActivityRequest(), { name: 'score', event: 'update', event_updates: { home: n, away: 0 } }));
    await update(0); // warm: the app's gateway client, prepared statements
    sim.reset();
    trips.length = 0;
    sent = false;
    await update(1);
  });
  after(async () => {
    ApnsClients.prototype.get = originalGet;
    await api?.close();
    await broadcast?.close();
    await sim?.close();
  });

  it('one broadcast request reached the simulator', () => {
    expect(sim.deliveries(undefined, channelId).filter((d) => d.broadcast)).to.have.length(1);
  });

  it('before it: the app, the audience and the channel (read side by side); the record beside it; the bus and the outcome after', () => {
    const before = trips.filter((t) => t.beforeApple).map((t) => t.what);
    expect(before).to.deep.equal([
      'pg: herald-get-app',
      'pg: herald-find-activity-channel',
      'pg: SELECT count(*)::int AS n FROM live_activity_tokens WHERE ap', // the audience: the tokens counted at the answer
    ]);
    // Started meanwhile or after, none of them waited for: the send's record, the bus messages, the senders' wake-up, the outcome.
    expect(trips.filter((t) => !t.beforeApple && !t.what.startsWith('apple')).map((t) => t.what)).to.have.members([
      'pg: herald-record-sends',
      'nats: publish (outbox, acknowledged)',
      'pg: herald-outbox-delete',
      'nats: publish (wake)',
      'pg: herald-record-broadcast-outcome',
    ]);
  });
});
