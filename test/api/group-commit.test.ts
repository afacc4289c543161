// Group commit of the accept statement: sends written together in one statement each get their
// own id, list chunk and created event; concurrent requests through the api are each answered
// with their own send, durable when answered.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { addDevices, makeApp, type TestApp } from '../support/apps.js';
import { recordSends, type NewSendRow } from '../../core/send/create-send.js';

describe('api: group commit of sends', () => {
  const env = useTestEnv();
  const api = useTestApi(env);
  let app: TestApp;
  let ids: string[];

  before(async () => {
    app = await makeApp(env.pool);
    ids = await addDevices(env.pool, app.app.id, Array.from({ length: 40 }, () => ({})));
  });

  it('one statement records several sends, each with its own id, chunk and outbox rows', async () => {
    const row = (text: string, listChunk: number, messages: number): NewSendRow => ({
      appId: app.app.id,
      kind: 'push',
      activity: null,
      source: 'api',
      targetKind: listChunk ? 'subscription_ids' : 'segment',
      request: JSON.stringify({ text }),
      status: 'queued',
      message: '',
      estimate: listChunk || 7,
      maxSeq: listChunk ? null : 99,
      throttle: null,
      sendAfter: null,
      listChunk,
      templates: Array.from({ length: messages }, (_, k) => ({ subject: `test.s${k}`, msgIdPrefix: `p${k}-`, payload: { text, k } })),
    });
    const recorded = await recordSends(env.pool, [row('a', 3, 1), row('b', 0, 2), row('c', 1, 0)]);
    expect(new Set(recorded.map((r) => r.id)).size).to.equal(3);
    const sends = await env.pool.query('SELECT id::int, request->>\'text\' AS text, total_recipients, audience_max_seq::int, chunks_total FROM sends WHERE id = ANY($1) ORDER BY id', [recorded.map((r) => r.id)]);
    expect(sends.rows).to.deep.equal([
      { id: recorded[0].id, text: 'a', total_recipients: 3, audience_max_seq: null, chunks_total: 1 },
      { id: recorded[1].id, text: 'b', total_recipients: 7, audience_max_seq: 99, chunks_total: null },
      { id: recorded[2].id, text: 'c', total_recipients: 1, audience_max_seq: null, chunks_total: 1 },
    ]);
    const chunks = await env.pool.query('SELECT send_id::int, planned FROM send_chunks WHERE send_id = ANY($1) ORDER BY send_id', [recorded.map((r) => r.id)]);
    expect(chunks.rows).to.deep.equal([{ send_id: recorded[0].id, planned: 3 }, { send_id: recorded[2].id, planned: 1 }]);
    const outbox = await env.pool.query('SELECT id::int, msg_id, payload FROM outbox WHERE id = ANY($1) ORDER BY id', [recorded.flatMap((r) => r.outboxIds)]);
    expect(recorded.map((r) => r.outboxIds.length)).to.deep.equal([1, 2, 0]);
    expect(outbox.rows.map((o) => [o.id, o.msg_id, o.payload])).to.deep.equal([
      [recorded[0].outboxIds[0], `p0-${recorded[0].id}`, { text: 'a', k: 0, sendId: recorded[0].id }],
      [recorded[1].outboxIds[0], `p0-${recorded[1].id}`, { text: 'b', k: 0, sendId: recorded[1].id }],
      [recorded[1].outboxIds[1], `p1-${recorded[1].id}`, { text: 'b', k: 1, sendId: recorded[1].id }],
    ]);
    await env.pool.query('DELETE FROM outbox WHERE id = ANY($1)', [recorded.flatMap((r) => r.outboxIds)]);
  });

  it('answers 40 concurrent list sends each with its own durable send and one chunk', async () => {
    const answers = await Promise.all(
      ids.map((id, i) =>
        api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: `m${i}` }, include_subscription_ids: [id] } }),
      ),
    );
    expect(answers.map((a) => a.status)).to.deep.equal(ids.map(() => 200));
    const sendIds = answers.map((a) => a.body.id as number);
    expect(new Set(sendIds).size).to.equal(40);
    const rows = await env.pool.query(
      `SELECT s.id::int, s.request->'contents'->>'en' AS text, s.request->'target'->'ids'->>0 AS target, c.planned
         FROM sends s JOIN send_chunks c ON c.send_id = s.id WHERE s.id = ANY($1)`,
      [sendIds],
    );
    const byId = new Map(rows.rows.map((r) => [r.id, r]));
    sendIds.forEach((sendId, i) => expect(byId.get(sendId), `send ${i}`).to.deep.equal({ id: sendId, text: `m${i}`, target: ids[i], planned: 1 }));
    expect((await env.pool.query('SELECT count(*)::int AS n FROM outbox')).rows[0].n).to.equal(0);
  });
});
