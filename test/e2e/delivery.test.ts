// End to end: 2 api processes, 2 sender processes and the APNs simulator on loopback, against the
// real PostgreSQL, Redis and NATS JetStream. Every state of the contract is observed through GET
// stats; counts are exact; languages, failures, 410 unsubscribes, retries and opens behave.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { createKey } from '../../core/apps/keys.js';
import { startApnsSim, type ApnsSim } from '../../apns-sim/index.js';
import { addDevices, createTestApp, token, type TestApp } from '../delivery/fixtures.js';
import { apiClient, startRole, type Proc } from './harness.js';
import { waitFor } from '../support/wait.js';

describe('e2e: delivery with 2 api and 2 sender processes', function () {
  this.timeout(240_000);
  const env = useTestEnv();
  let sim: ApnsSim;
  let t: TestApp;
  let apis: ReturnType<typeof apiClient>[] = [];
  const procs: Proc[] = [];
  let senderEnv: Record<string, string>;

  before(async () => {
    t = await createTestApp(env.pool, 'e2e');
    sim = await startApnsSim({
      keys: [{ keyId: t.key.keyId, teamId: t.teamId, publicKey: t.key.publicKeyPem }],
      rules: [
        { prefix: 'bad0', status: 400, reason: 'BadDeviceToken' },
        { prefix: 'dead', status: 410 },
        { prefix: 'b0b0', status: 429, times: 1 },
        { prefix: '5e5e', status: 503 },
        { prefix: 'f10', delayMs: 150 }, // slow devices keep the send in `sending` long enough to see it
      ],
    });
    const { key } = await createKey(env.pool, t.app.id, { name: 'e2e' });
    const [a1, a2] = await Promise.all([startRole('api', env.childEnv()), startRole('api', env.childEnv())]);
    procs.push(a1, a2);
    apis = [apiClient(a1.port, key), apiClient(a2.port, key)];
    senderEnv = env.childEnv({
      HERALD_APNS_URL: sim.url,
      HERALD_APNS_CA_FILE: sim.caFile,
      HERALD_SENDER_LEASE_MS: '5000',
      HERALD_SENDER_RETRY_BASE_MS: '20',
      HERALD_SENDER_CONCURRENCY: '2',
      // The 5e5e devices, answered 503 alone once the rest of their chunk is decided, look like an
      // outage from their chunk: held (no attempt spent) until this hold ends, then failed.
      HERALD_SENDER_GATEWAY_HOLD_MS: '3000',
    });
  });

  after(async () => {
    await Promise.all(procs.map((p) => p.kill('SIGKILL')));
    await sim?.close();
  });

  it('a segment send of a few thousand devices: queued → sending → approved, exact counts, languages, outcomes, opens', async () => {
    await addDevices(env.pool, t.app.id, 2000, { prefix: 'e0', language: 'en' });
    await addDevices(env.pool, t.app.id, 800, { prefix: 'f10', language: 'fr-FR' });
    await addDevices(env.pool, t.app.id, 25, { prefix: 'bad0' });
    const gone = await addDevices(env.pool, t.app.id, 15, { prefix: 'dead' });
    const flaky = await addDevices(env.pool, t.app.id, 10, { prefix: 'b0b0' });
    await addDevices(env.pool, t.app.id, 5, { prefix: '5e5e' });
    const total = 2855;

    // No sender runs yet: the send is queued, and stays so.
    const created = await apis[0].post('/api/v1/notifications', {
      app_id: t.app.id,
      included_segments: ['Subscribed Users'],
      contents: { en: 'Your order shipped', fr: 'Votre commande est partie' },
      headings: { en: 'Herald', fr: 'Héraut' },
    });
    expect(created.status).to.equal(202);
    expect(created.body).to.include({ status: 'queued', sent: 0, estimate: total });
    const id = created.body.id;
    const queued = await apis[1].get(`/api/v1/notifications/${id}`);
    expect(queued.body).to.include({ status: 'queued', total_recipients: total, processed: 0, remaining: total, sent: 0 });

    const senders = await Promise.all([startRole('sender', senderEnv), startRole('sender', senderEnv)]);
    procs.push(...senders);
    // 'queued' was observed above, before any sender ran; the senders may claim the first chunk
    // before the loop's first read, so the loop only adds the states that follow.
    const seen: string[] = [queued.body.status];
    let lastProcessed = 0;
    let reads = 0;
    // Each read is held to the counting rules; one that breaks them ends the wait (an assertion
    // thrown in the probe would only count as "not yet"). 10 reads a second: under the app's read
    // bucket (20 a second, bursts of 40), which a send that waits out its always-503 devices (the
    // gateway hold) would otherwise drain.
    const read = await waitFor(`send ${id} approved or draft`, async () => {
      const { status: code, body } = await apis[reads++ % 2].get(`/api/v1/notifications/${id}`);
      const broken = code !== 200 || body.processed + body.remaining !== body.total_recipients || body.processed !== body.sent + body.failed + body.skipped || body.processed < lastProcessed;
      if (broken) return { code, body, lastProcessed };
      if (seen[seen.length - 1] !== body.status) seen.push(body.status);
      lastProcessed = body.processed;
      return (body.status === 'approved' || body.status === 'draft') && { code, body, lastProcessed };
    }, 150_000, 100);
    expect(read.code, JSON.stringify(read.body)).to.equal(200);
    expect(read.body.processed + read.body.remaining).to.equal(read.body.total_recipients);
    expect(read.body.processed).to.equal(read.body.sent + read.body.failed + read.body.skipped);
    expect(read.body.processed).to.be.at.least(read.lastProcessed);
    const final = read.body;
    expect(seen).to.deep.equal(['queued', 'sending', 'approved']);
    expect(final).to.deep.include({
      status: 'approved',
      total_recipients: total,
      processed: total,
      remaining: 0,
      sent: 2810,
      successful: 2810,
      failed: 45, // 25 × 400, 15 × 410, 5 × 503 at the end of the gateway hold
      skipped: 0,
      errored: 0,
    });
    expect(sim.attempts(flaky[0])).to.equal(2);
    expect(sim.attempts(token('5e5e', 0))).to.be.at.least(4);
    const fr = sim.deliveries(token('f10', 7))[0];
    expect(JSON.parse(fr.payload).aps.alert).to.deep.equal({ title: 'Héraut', body: 'Votre commande est partie' });
    expect(JSON.parse(sim.deliveries(token('e0', 7))[0].payload).aps.alert.body).to.equal('Your order shipped');
    const unsub = await env.pool.query('SELECT count(*)::int AS n FROM subscriptions WHERE app_id = $1 AND token = ANY($2) AND NOT subscribed', [t.app.id, gone]);
    expect(unsub.rows[0].n).to.equal(15);

    // Opens reported by the app raise clicked (= converted), once per install.
    const subs = (await env.pool.query('SELECT id FROM subscriptions WHERE app_id = $1 ORDER BY seq LIMIT 2', [t.app.id])).rows;
    for (const s of [subs[0], subs[0], subs[1]]) {
      const r = await apis[1].post(`/api/v1/notifications/${id}/opened`, { app_id: t.app.id, subscription_id: s.id });
      expect(r.status).to.equal(200);
    }
    const opened = await apis[0].get(`/api/v1/notifications/${id}`);
    expect(opened.body).to.include({ clicked: 2, converted: 2 });
  });

  it('a tag send the gateway accepts none of ends draft; a list send goes sending → approved with skipped ids', async () => {
    await addDevices(env.pool, t.app.id, 40, { prefix: 'bad0ff', tags: { grp: 'broken' } });
    const tagSend = await apis[1].post('/api/v1/notifications', { app_id: t.app.id, tag: { key: 'grp', relation: '=', value: 'broken' }, contents: { en: 'x' } });
    expect(tagSend.status).to.equal(202);
    let body: any = await waitFor(`send ${tagSend.body.id} draft or approved`, async () => {
      const now = (await apis[0].get(`/api/v1/notifications/${tagSend.body.id}`)).body;
      return (now.status === 'draft' || now.status === 'approved') && now;
    }, 30_000, 20);
    expect(body).to.include({ status: 'draft', total_recipients: 40, processed: 40, remaining: 0, sent: 0, failed: 40 });

    const ids = (await env.pool.query(`SELECT id FROM subscriptions WHERE app_id = $1 AND subscribed AND token LIKE 'e0%' ORDER BY seq LIMIT 3`, [t.app.id])).rows.map((r) => r.id);
    const listSend = await apis[0].post('/api/v1/notifications', { app_id: t.app.id, include_subscription_ids: [...ids, '11111111-1111-4111-8111-111111111111'], contents: { en: 'y' } });
    expect(listSend.status).to.equal(200);
    expect(listSend.body.status).to.equal('sending');
    const seen = new Set<string>();
    let reads = 0;
    body = await waitFor(`send ${listSend.body.id} draft or approved`, async () => {
      const now = (await apis[reads++ % 2].get(`/api/v1/notifications/${listSend.body.id}`)).body;
      seen.add(now.status);
      return (now.status === 'draft' || now.status === 'approved') && now;
    }, 30_000, 10);
    expect(body).to.include({ status: 'approved', total_recipients: 4, processed: 4, remaining: 0, sent: 3, skipped: 1 });
  });

  it('senders expose metrics and stop cleanly on SIGTERM', async () => {
    const senders = procs.slice(2);
    // Either sender may have taken every chunk: each exposes the families, the sum shows the work.
    const texts = await Promise.all(senders.map(async (p) => (await fetch(`http://127.0.0.1:${p.port}/metrics`)).text()));
    for (const text of texts) {
      for (const family of ['herald_sender_deliveries_total counter', 'herald_sender_chunk_duration_seconds histogram', 'herald_sender_apns_request_duration_seconds histogram', 'herald_sender_apns_streams_in_flight gauge']) {
        expect(text).to.include(`# TYPE ${family}`);
      }
      expect(text).to.match(/herald_sender_consumer_lag\{kind="pending"\} \d+/);
    }
    // Each gateway's own series (the `gateway` label, apns and fcm): the sent ones without a reason.
    const sentOf = (text: string) => text.split('\n')
      .filter((l) => l.startsWith('herald_sender_deliveries_total{') && l.includes('outcome="sent"') && l.includes('reason=""'))
      .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
    const sent = texts.map(sentOf).reduce((a, b) => a + b, 0);
    expect(sent, 'devices sent, summed over the senders').to.be.at.least(3);
    expect(texts.some((t) => /herald_sender_apns_request_duration_seconds_bucket\{le="[^"]+",status="200"\} [1-9]/.test(t))).to.equal(true);
    const code = await senders[1].kill('SIGTERM');
    expect(code).to.equal(0);
  });
});
