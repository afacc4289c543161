// The event benchmark's receiver, a child process of bench/events/run.ts (so its CPU is not the
// benchmark's or the sender's): a webhook endpoint that verifies nothing and answers 204, and,
// with a NATS subject, a JetStream consumer of the app's stream. Each counts events by
// `event.id` (duplicates apart) and keeps when the first and the last new one arrived. Driven
// over IPC: `stats`, `down` (the endpoint stops listening: connections refused) and `up`.
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, AckPolicy, DeliverPolicy } from '@nats-io/jetstream';

interface Tally {
  ids: Set<string>;
  duplicates: number;
  requests: number;
  firstAt: number;
  lastNewAt: number;
}

const tally = (): Tally => ({ ids: new Set(), duplicates: 0, requests: 0, firstAt: 0, lastNewAt: 0 });
const hooks = tally();
const stream = tally();

function count(t: Tally, id: string): void {
  const now = Date.now();
  if (!t.firstAt) t.firstAt = now;
  if (t.ids.has(id)) t.duplicates++;
  else {
    t.ids.add(id);
    t.lastNewAt = now;
  }
}

const sockets = new Set<Socket>();
let server: Server | undefined;
let port = 0;

function listen(): Promise<void> {
  server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c)).on('end', () => {
      hooks.requests++;
      for (const e of JSON.parse(Buffer.concat(parts).toString('utf8')) as Array<{ event: { id: string } }>) count(hooks, e.event.id);
      res.writeHead(204).end();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return new Promise((resolve) => server!.listen(port, '127.0.0.1', () => {
    port = (server!.address() as { port: number }).port;
    resolve();
  }));
}

async function consumeStream(natsUrl: string, streamName: string, subject: string): Promise<void> {
  const nc = await connect({ servers: natsUrl, maxReconnectAttempts: -1 });
  const jsm = await jetstreamManager(nc);
  const durable = `bench_${process.pid}`;
  await jsm.consumers.add(streamName, { durable_name: durable, filter_subject: subject, ack_policy: AckPolicy.None, deliver_policy: DeliverPolicy.New });
  const messages = await (await jetstream(nc).consumers.get(streamName, durable)).consume({ max_messages: 5000 });
  void (async () => {
    for await (const m of messages) {
      stream.requests++;
      count(stream, m.headers?.get('Nats-Msg-Id') ?? '');
    }
  })();
}

const summary = (t: Tally) => ({ events: t.ids.size, duplicates: t.duplicates, requests: t.requests, firstAt: t.firstAt, lastNewAt: t.lastNewAt });

process.on('message', async (msg: { cmd: string; natsUrl?: string; stream?: string; subject?: string }) => {
  if (msg.cmd === 'stats') process.send!({ hooks: summary(hooks), stream: summary(stream), rssMiB: process.memoryUsage().rss / 2 ** 20 });
  else if (msg.cmd === 'down') {
    await new Promise((r) => {
      server!.close(r);
      for (const s of sockets) s.destroy();
    });
    process.send!({ down: true });
  } else if (msg.cmd === 'up') {
    await listen();
    process.send!({ up: true });
  } else if (msg.cmd === 'stream') {
    await consumeStream(msg.natsUrl!, msg.stream!, msg.subject!);
    process.send!({ consuming: true });
  }
});

await listen();
process.send!({ port });
