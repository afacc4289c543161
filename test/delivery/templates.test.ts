// A send naming template_id reaches the simulator with the template's content, in each device's
// language (issue 30 point 1): created and sent through the official client, delivered by a real
// sender to the APNs simulator.
import { expect } from 'chai';
import * as OneSignal from '@onesignal/node-onesignal';
import { useTestEnv } from '../env/index.js';
import { addDevices, startDeliveryStack, waitFinal, type DeliveryStack } from './fixtures.js';

describe('delivery: a send from a template', () => {
  const env = useTestEnv();
  let stack: DeliveryStack;
  before(async () => {
    stack = await startDeliveryStack(env, 'templates');
  });
  after(() => stack?.close());

  it("delivers the template's texts in each device's language, and its link and data", async () => {
    const app = stack.app.app.id;
    const english = await addDevices(env.pool, app, 2, { prefix: 'e1', language: 'en' });
    const french = await addDevices(env.pool, app, 2, { prefix: 'f1', language: 'fr' });
    const german = await addDevices(env.pool, app, 1, { prefix: 'd1', language: 'de' });
    // Fields the client's template model lacks (url, data) go through the same call unmodelled.
    const made = await stack.api.request('POST', '/api/v1/templates', {
      key: stack.key,
      body: { app_id: app, name: 'Sale', contents: { en: 'Sale today', fr: 'Soldes aujourd’hui' }, headings: { en: 'Shop', fr: 'Boutique' }, url: 'https://example.com/sale', data: { promo: 'p1' } },
    });
    expect(made.status).to.equal(200);
    const sent = await stack.client.createNotification(Object.assign(new OneSignal.Notification(), { app_id: app, included_segments: ['Subscribed Users'], template_id: made.body.id }));
    const { final } = await waitFinal(env.pool, Number(sent.id));
    expect(final).to.include({ sent: 5, failed: 0 });
    const alerts = (tokens: string[]) =>
      tokens.map((t) => {
        const payload = JSON.parse(stack.sim.deliveries(t).at(-1)!.payload) as { aps: { alert: { title?: string; body: string } }; custom: { u?: string; a?: Record<string, string> } };
        return [payload.aps.alert.title, payload.aps.alert.body, payload.custom.u, payload.custom.a?.promo];
      });
    expect(alerts(english)).to.deep.equal(Array(2).fill(['Shop', 'Sale today', 'https://example.com/sale', 'p1']));
    expect(alerts(french)).to.deep.equal(Array(2).fill(['Boutique', 'Soldes aujourd’hui', 'https://example.com/sale', 'p1']));
    // No German text: the default language (en), as any send.
    expect(alerts(german)).to.deep.equal([['Shop', 'Sale today', 'https://example.com/sale', 'p1']]);
  });

  it("sends the template's iOS fields as the same body written out would, the send's own fields first", async () => {
    const app = stack.app.app.id;
    const [device] = await addDevices(env.pool, app, 1, { prefix: 'c1', language: 'en', tags: { batch: 'ios-fields' } });
    const audience = { app_id: app, filters: [{ field: 'tag', key: 'batch', relation: '=', value: 'ios-fields' }] };
    const iosFields = {
      subtitle: { en: 'Today only' },
      ios_sound: 'chime.caf',
      thread_id: 'sales',
      summary_arg: 'Shop',
      summary_arg_count: 2,
      ios_badgeType: 'SetTo',
      ios_badgeCount: 3,
      ios_interruption_level: 'time_sensitive',
      ios_relevance_score: 0.5,
      target_content_identifier: 'sale-window',
      mutable_content: true,
      ios_attachments: { id1: 'https://example.com/sale.png' },
      buttons: [{ id: 'buy', text: 'Buy' }],
    };
    const made = await stack.api.request('POST', '/api/v1/templates', {
      key: stack.key,
      body: { app_id: app, name: 'Sale, every field', contents: { en: 'Sale today' }, headings: { en: 'Shop' }, ...iosFields },
    });
    expect(made.status, JSON.stringify(made.body)).to.equal(200);
    // The send's own ios_sound and headings win over the template's.
    const fromTemplate = await stack.api.request('POST', '/api/v1/notifications', {
      key: stack.key,
      body: { ...audience, template_id: made.body.id, ios_sound: 'bell.caf', headings: { en: 'Store' } },
    });
    expect(fromTemplate.status, JSON.stringify(fromTemplate.body)).to.equal(202);
    const first = (await waitFinal(env.pool, Number(fromTemplate.body.id))).final;
    expect(first).to.include({ sent: 1, failed: 0 });
    const written = await stack.api.request('POST', '/api/v1/notifications', {
      key: stack.key,
      body: { ...audience, contents: { en: 'Sale today' }, ...iosFields, ios_sound: 'bell.caf', headings: { en: 'Store' } },
    });
    expect(written.status, JSON.stringify(written.body)).to.equal(202);
    expect((await waitFinal(env.pool, Number(written.body.id))).final).to.include({ sent: 1, failed: 0 });

    const [a, b] = stack.sim.deliveries(device).map((d) => {
      const payload = JSON.parse(d.payload) as { aps: Record<string, unknown>; custom: Record<string, unknown> };
      delete payload.custom.i; // the send's own id
      return payload;
    });
    expect(a).to.deep.equal(b);
    expect(a.aps).to.deep.include({ sound: 'bell.caf', 'thread-id': 'sales', badge: 3, 'interruption-level': 'time-sensitive', 'mutable-content': 1 });
    expect(a.aps.alert).to.deep.include({ title: 'Store', subtitle: 'Today only', body: 'Sale today' });
  });
});
