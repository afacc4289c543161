// `herald events replay` run as a person runs it (bin/herald.js in a child process), served by a
// dispatcher in this process, to real receivers verifying every request with `standardwebhooks`:
// the events of the range arrive again with the same event ids under new webhook-ids, only at the
// destination named, without moving its place; the progress is printed (a refusal included); and
// every bad input is a one-line message with its exit code (2: the arguments, 1: the app's state),
// the 7-day window tested at its edge.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { useTestEnv } from '../env/index.js';
import { startEventDispatcher, type EventDispatcher } from '../../core/events/dispatcher.js';
import { REPLAY_DAYS } from '../../core/events/replay-window.js';
import { addDestination, eventsOf, startReceiver, whsec, type Receiver } from '../delivery/event-receiver.js';
import { createTestApp } from '../delivery/fixtures.js';
import { herald } from '../support/cli.js';
import { waitFor } from '../support/wait.js';

describe('cli: herald events replay', function () {
  let dispatcher: EventDispatcher;
  this.timeout(60_000);
  // Before the env's own after hook (registered by useTestEnv), which ends the pool the dispatcher uses.
  after(async () => {
    await dispatcher?.stop();
    await backend?.close();
    await crm?.close();
  });
  const env = useTestEnv({ redis: false });
  const run = (...args: string[]) => herald(args, env.childEnv());
  const runWatching = (onStdout: (printed: string) => void, ...args: string[]) => herald(args, env.childEnv(), onStdout);
  const secret = whsec();
  let backend: Receiver;
  let crm: Receiver;
  let refuseBackend = 0; // requests to refuse (500) before answering again
  let appId: string;
  const hoursAgo = (h: number) => new Date(Date.now() - h * 3600_000).toISOString();

  before(async () => {
    backend = await startReceiver(secret, () => (refuseBackend-- > 0 ? 500 : 204));
    crm = await startReceiver(secret);
    appId = (await createTestApp(env.pool, 'replayshop')).app.id;
    await addDestination(env.pool, appId, 'backend', backend.url, secret);
    await addDestination(env.pool, appId, 'crm', crm.url, secret);
    // The app's NATS stream too (spec.events.stream): never replayed, nor named among its destinations.
    await env.pool.query(`INSERT INTO event_destinations (app_id, name, url, secret) SELECT app_id, '@jetstream', 'nats:jetstream', secret FROM event_destinations WHERE app_id = $1 AND name = 'crm'`, [appId]);
    // Three records: 3 h, 2 h and 1 h ago (2, 3 and 1 events).
    const record = (kind: string, body: unknown, hours: number) =>
      env.pool.query(`INSERT INTO event_records (app_id, send_id, kind, body, recorded_at) VALUES ($1, 7, $2, $3, now() - make_interval(hours => $4))`, [appId, kind, JSON.stringify(body), hours]);
    const chunk = (n: number) => ({ chunk: 0, s: Array.from({ length: n }, () => randomUUID()), f: [], u: [] });
    await record('chunk', chunk(2), 3);
    await record('chunk', chunk(3), 2);
    await record('notification.created', { status: 'queued', estimate: 5 }, 1);
    dispatcher = startEventDispatcher({ pool: env.pool, logger: pino({ level: 'warn' }), httpHosts: ['127.0.0.1'], lanes: 2, idleMs: 50, backoff: { baseMs: 100, maxMs: 200 } });
    await waitFor('the live deliveries', () => eventsOf(backend.accepted).length === 6 && eventsOf(crm.accepted).length === 6);
  });

  const place = async () => (await env.pool.query(`SELECT name, delivered_through::text AS t, delivered_offset AS o FROM event_destinations WHERE app_id = $1 ORDER BY name`, [appId])).rows;

  it('re-delivers the range to the destination named, same event ids, new webhook-ids, its place unmoved; prints the progress', async () => {
    const before = await place();
    const live = backend.accepted.slice();
    const res = await run('events', 'replay', '--app', appId, '--from', hoursAgo(2.5), '--to', hoursAgo(0.5), '--destination', 'backend');
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout).to.match(/^replaying the events of replayshop recorded from \S+ to \S+ \(2 records\) to backend \(replay \d+\); the senders deliver them, Ctrl-C stops following\n/);
    expect(res.stdout.trim().split('\n').at(-1)).to.equal('backend: done, 2 of 2 records, 4 events delivered');
    const again = backend.accepted.slice(live.length);
    // The last 4 of the live events (the records of 2 h and 1 h ago), with their ids and bodies.
    expect(eventsOf(again)).to.deep.equal(eventsOf(live).slice(2));
    const liveIds = new Set(live.map((d) => d.webhookId));
    for (const d of again) expect(liveIds.has(d.webhookId), d.webhookId).to.equal(false);
    expect(eventsOf(crm.accepted)).to.have.length(6); // not named: nothing again
    expect(await place()).to.deep.equal(before);
  });

  it('without --destination, every destination; a refusal shows in the progress and is retried', async () => {
    // The backend refuses until the command has printed its retrying line (whatever the back-off and the command's pace).
    refuseBackend = Infinity;
    const [b, c] = [backend.accepted.length, crm.accepted.length];
    const res = await runWatching((printed) => {
      if (/^backend: retrying/m.test(printed)) refuseBackend = 0;
    }, 'events', 'replay', '--app', 'replayshop', '--from', hoursAgo(4), '--to', hoursAgo(0));
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout).to.match(/to backend \(replay \d+\), crm \(replay \d+\);/);
    expect(res.stdout).to.match(/^backend: retrying \(HTTP 500; attempt \d+\), 0 of 3 records, 0 events delivered$/m);
    expect(res.stdout).to.match(/^backend: done, 3 of 3 records, 6 events delivered$/m);
    expect(res.stdout).to.match(/^crm: done, 3 of 3 records, 6 events delivered$/m);
    expect(eventsOf(backend.accepted.slice(b)).map((e) => e.event.id)).to.deep.equal(eventsOf(backend.accepted).slice(0, 6).map((e) => e.event.id));
    expect(eventsOf(crm.accepted.slice(c)).map((e) => e.event.id)).to.deep.equal(eventsOf(crm.accepted).slice(0, 6).map((e) => e.event.id));
    const list = await run('events', 'replays', '--app', 'replayshop');
    expect(list.code, list.stderr).to.equal(0);
    const lines = list.stdout.replace(/\n$/, '').split('\n'); // not trim(): the last row ends with an empty LAST_ERROR
    expect(lines[0]).to.equal('ID\tDESTINATION\tFROM\tTO\tRECORDS\tEVENTS\tSTATE\tLAST_ERROR');
    expect(lines.slice(1).map((l) => l.split('\t').filter((_, i) => [1, 4, 5, 6, 7].includes(i)))).to.deep.equal([
      ['crm', '3/3', '6', 'done', ''],
      ['backend', '3/3', '6', 'done', ''],
      ['backend', '2/2', '4', 'done', ''],
    ]);
  });

  it('refuses bad input in one line: exit 2 for the arguments, 1 for the app', async () => {
    const window = REPLAY_DAYS * 24;
    const cases: Array<[string[], number, RegExp]> = [
      [['--app', appId, '--from', hoursAgo(1), '--to', hoursAgo(2)], 2, /^herald: --from \S+ is after --to \S+\n$/],
      [['--app', appId, '--from', hoursAgo(window + 0.1), '--to', hoursAgo(1)], 2, /^herald: --from \S+ is more than 7 days ago: events are kept 7 days for a replay \(docs\/events\.md "Replay"\); the oldest --from is \S+\n$/],
      [['--app', appId, '--from', hoursAgo(window - 0.1), '--to', hoursAgo(window - 0.2)], 1, /^herald: no events were recorded for the app from \S+ to \S+\n$/], // inside the window, just
      [['--app', appId, '--from', hoursAgo(1), '--to', new Date(Date.now() + 3600_000).toISOString()], 2, /^herald: --to \S+ is in the future/],
      [['--app', appId, '--from', 'yesterday', '--to', hoursAgo(1)], 2, /^herald: --from must be an ISO 8601 time such as 2026-11-25T14:00:00Z \(or a date, 2026-11-25\), not "yesterday"\n$/],
      [['--app', appId, '--from', '2026-13-45', '--to', hoursAgo(1)], 2, /^herald: --from must be an ISO 8601 time/],
      [['--app', appId, '--from', hoursAgo(1)], 2, /^herald: usage: herald events replay --app APP --from TIME --to TIME \[--destination NAME\] \(--to is missing\)\n$/],
      [['--from', hoursAgo(2), '--to', hoursAgo(1)], 2, /^herald: usage: herald events replay .* \(--app is missing\)\n$/],
      [['--app', appId, '--from', hoursAgo(2), '--to', hoursAgo(1), '--destination', 'nope'], 1, /^herald: --destination: the app has no destination named nope; its destinations: backend, crm\n$/],
      [['--app', appId, '--from', hoursAgo(2), '--to', hoursAgo(1), '--destination', 'Not A Name'], 2, /^herald: --destination is a destination's name/],
      [['--app', randomUUID(), '--from', hoursAgo(2), '--to', hoursAgo(1)], 1, /^herald: no app with id \S+; herald apps list shows them\n$/],
      [['--app', 'no-such-app', '--from', hoursAgo(2), '--to', hoursAgo(1)], 1, /^herald: no app named no-such-app/],
    ];
    for (const [args, code, message] of cases) {
      const res = await run('events', 'replay', ...args);
      expect(res.code, args.join(' ')).to.equal(code);
      expect(res.stderr, args.join(' ')).to.match(message);
    }
    expect((await env.pool.query('SELECT count(*)::int AS n FROM event_replays WHERE finished_at IS NULL')).rows[0].n).to.equal(0);
  });
});
