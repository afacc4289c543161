import { expect } from 'chai';
import { jsonEqual, setCondition } from './conditions.js';

describe('setCondition', () => {
  const t0 = new Date('2026-01-01T00:00:00.123Z');
  const t1 = new Date('2026-01-02T00:00:00Z');
  const ready = { type: 'Ready', status: 'True' as const, reason: 'Ready', message: 'ok' };

  it('stamps the generation and a second-precision transition time', () => {
    expect(setCondition([], ready, 3, t0)).to.deep.equal([{ ...ready, lastTransitionTime: '2026-01-01T00:00:00Z', observedGeneration: 3 }]);
  });
  it('keeps lastTransitionTime while the status stays, even when reason or message change', () => {
    const first = setCondition([], ready, 1, t0);
    const next = setCondition(first, { ...ready, message: 'still ok' }, 2, t1);
    expect(next[0]).to.include({ lastTransitionTime: '2026-01-01T00:00:00Z', observedGeneration: 2, message: 'still ok' });
  });
  it('moves lastTransitionTime when the status flips, and leaves other conditions alone', () => {
    const first = setCondition(setCondition([], ready, 1, t0), { type: 'DeliveryPaused', status: 'False', reason: 'InvoicePaid', message: '' }, 1, t0);
    const next = setCondition(first, { ...ready, status: 'False', reason: 'CredentialsNotReady' }, 1, t1);
    expect(next[0].lastTransitionTime).to.equal('2026-01-02T00:00:00Z');
    expect(next[1]).to.deep.equal(first[1]);
  });
  it('an unchanged status compares equal, so nothing is written', () => {
    const a = setCondition([], ready, 1, t0);
    expect(jsonEqual({ conditions: a, appId: 'x' }, { appId: 'x', conditions: setCondition(a, ready, 1, t1) })).to.equal(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: undefined })).to.equal(true);
    expect(jsonEqual({ a: [1, 2] }, { a: [2, 1] })).to.equal(false);
  });
});
