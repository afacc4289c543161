// The simulator's channel store keeps its bounds: channels per bundle id (Apple's quota) and the
// number of bundle ids, so a client naming a new bundle id each time cannot grow it without end.
import { expect } from 'chai';
import { ChannelStore } from './channels.js';

describe('simulator: the channel store', () => {
  it('holds at most maxBundles bundle ids: the 3rd of 3 is made, a 4th refused, an emptied one frees its place', () => {
    const store = new ChannelStore(5, 3);
    const first = store.create('com.example.a', 0);
    expect(first).to.not.equal(undefined);
    expect(store.create('com.example.b', 0)).to.not.equal(undefined);
    expect(store.create('com.example.c', 0)).to.not.equal(undefined);
    expect(store.create('com.example.d', 0)).to.equal(undefined);
    // A known bundle id still takes channels up to its own cap.
    expect(store.create('com.example.a', 1)).to.not.equal(undefined);
    store.delete('com.example.b', store.list('com.example.b')[0]);
    expect(store.create('com.example.d', 0)).to.not.equal(undefined);
  });
});
