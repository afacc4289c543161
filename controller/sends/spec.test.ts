import { expect } from 'chai';
import { validateSendRequest } from '../../core/validation/validate-send.js';
import { restBody, specFromRequest } from './spec.js';
import { shouldMirror } from './mirror.js';

const APP = { id: '8e9f1c2a-4b5d-4e6f-9a0b-1c2d3e4f5a6b', bundleId: 'dev.herald.demo', segmentNames: ['Power users'] };

describe('Send spec ↔ REST body', () => {
  it('a spec is the REST body with app_id in place of appRef', () => {
    expect(restBody({ appRef: { name: 'demo' }, contents: { en: 'x' }, tag: { key: 'k', relation: 'exists' } }, APP.id))
      .to.deep.equal({ app_id: APP.id, contents: { en: 'x' }, tag: { key: 'k', relation: 'exists' } });
  });

  it('leaves cancel out of the REST body (it may be set after the submission)', () => {
    expect(restBody({ appRef: { name: 'demo' }, contents: { en: 'x' }, included_segments: ['All'], cancel: true }, APP.id))
      .to.deep.equal({ app_id: APP.id, contents: { en: 'x' }, included_segments: ['All'] });
  });

  const bodies: Record<string, unknown>[] = [
    { contents: { en: 'Hi', fr: 'Salut' }, headings: { en: 'T' }, included_segments: ['Power users'], url: 'https://x.example/a', data: { a: 'b' }, buttons: [{ id: 'o', text: 'Open' }], throttle_rate_per_minute: 600, idempotency_key: 'k_1' },
    { contents: { en: 'Hi' }, tag: { key: 'level', relation: '>', value: '10' }, big_picture: 'https://x.example/i.png' },
    { contents: { en: 'Hi' }, include_subscription_ids: ['6b1f0b9e-2f43-4a51-9a3b-6c1f0f3e2d11'] },
    { contents: { en: 'Hi' }, include_external_ids: ['u1', 'u2'], send_after: '2099-01-01T00:00:00Z' },
  ];
  for (const body of bodies) {
    it(`a mirror's spec validates back to the same request: ${Object.keys(body).join(', ')}`, () => {
      const now = new Date('2098-12-31T00:00:00Z');
      const req = validateSendRequest({ body: { app_id: APP.id, ...body }, app: APP, now });
      const spec = specFromRequest('demo', JSON.parse(JSON.stringify(req)));
      const again = validateSendRequest({ body: restBody(spec, APP.id), app: APP, now });
      expect(JSON.parse(JSON.stringify(again))).to.deep.equal(JSON.parse(JSON.stringify(req)));
    });
  }

  it('mirrors api sends by the setting: broadcasts = segment, tag and scheduled', () => {
    const e = (broadcast: boolean, scheduled: boolean, source: 'api' | 'kubernetes' = 'api') =>
      ({ sendId: 1, appId: APP.id, status: 'queued', targetKind: 'segment', broadcast, scheduled, source }) as const;
    expect(shouldMirror('broadcasts', e(true, false))).to.equal(true);
    expect(shouldMirror('broadcasts', e(false, true))).to.equal(true);
    expect(shouldMirror('broadcasts', e(false, false))).to.equal(false);
    expect(shouldMirror('all', e(false, false))).to.equal(true);
    expect(shouldMirror('none', e(true, true))).to.equal(false);
    expect(shouldMirror('all', e(true, false, 'kubernetes'))).to.equal(false);
    // A Live Activity push has no Send spec to show it.
    expect(shouldMirror('all', { ...e(true, false), kind: 'live_activity' })).to.equal(false);
    expect(shouldMirror('all', { ...e(true, false), kind: 'push' })).to.equal(true);
  });
});
