import { expect } from 'chai';
import { Recorder, type DeliveryRecord } from './recorder.js';

const record = (token: string, pushType: string | undefined, receivedAt: number): DeliveryRecord => ({
  token,
  status: 200,
  apnsId: `id-${token}`,
  headers: pushType ? { 'apns-push-type': pushType } : {},
  payload: '{}',
  connection: 1,
  receivedAt,
});

describe('apns-sim recorder: the delivery ring', () => {
  it('keeps every push type by default, oldest first, the newest winning when full', () => {
    const r = new Recorder(2, false);
    r.keep(record('a', 'alert', 1));
    r.keep(record('b', undefined, 2));
    r.keep(record('c', 'liveactivity', 3));
    expect(r.deliveries().map((d) => d.token)).to.deep.equal(['b', 'c']);
  });

  it('keeps only the push types asked for (a missing header is an alert, as Apple reads it)', () => {
    const r = new Recorder(10, false, new Set(['liveactivity']));
    r.keep(record('a', 'alert', 1));
    r.keep(record('b', undefined, 2));
    r.keep(record('c', 'liveactivity', 3));
    expect(r.deliveries().map((d) => d.token)).to.deep.equal(['c']);
  });
});
